/**
 * Ports for processes about to start are chosen below the kernel's ephemeral range, where no outgoing connection can
 * take one before its process binds it (a start failing with EADDRINUSE on a busy run), and are free when chosen.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort, portRange } from './ports';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('when ports are asked for, then each is below the ephemeral range and can be listened on', async () => {
    for (let i = 0; i < 20; i += 1) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('freePort across a system and across jest workers', () => {
  it('when a system asks for many ports before any process binds one, then no port is handed out twice', async () => {
    const ports = new Set<number>();
    for (let i = 0; i < 600; i += 1) ports.add(await freePort());
    expect(ports.size).toBe(600);
  });

  it('when two jest workers choose ports, then their ranges do not overlap and stay below the ephemeral range', () => {
    const ranges = Array.from({ length: 16 }, (_, i) => portRange(String(i + 1)));
    for (const [i, a] of ranges.entries()) {
      expect(a.low).toBeGreaterThanOrEqual(20_000);
      expect(a.high).toBeLessThan(ephemeralStart);
      expect(a.high - a.low).toBeGreaterThan(400);
      for (const b of ranges.slice(i + 1)) expect(a.high < b.low || b.high < a.low).toBe(true);
    }
  });
});
