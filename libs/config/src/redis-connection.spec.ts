/** REDIS_URL as ioredis options: one node, or a Sentinel group (ADR 0021). */
import { redisConnectionOptions, redisUrlSchema } from './redis-connection';

describe('REDIS_URL', () => {
  it('when it names one node, then host, port, credentials, database and TLS are read as ioredis reads them', () => {
    expect(redisConnectionOptions('redis://127.0.0.1:6390')).toEqual({ host: '127.0.0.1', port: 6390 });
    expect(redisConnectionOptions('redis://:p%40ss@redis/2')).toEqual({ host: 'redis', port: 6379, password: 'p@ss', db: 2 });
    expect(redisConnectionOptions('rediss://app:secret@cache.example.com:6380?family=6')).toEqual({
      host: 'cache.example.com',
      port: 6380,
      username: 'app',
      password: 'secret',
      tls: {},
      family: 6,
    });
  });

  it('when it names Sentinels, then every Sentinel (26379 unless given), the master group, the data nodes\' and the Sentinels\' credentials are read', () => {
    expect(
      redisConnectionOptions(
        'redis+sentinel://:data-pass@redis-0.redis-headless:26379,redis-1.redis-headless,[::1]:26380/mymaster/1?sentinelPassword=s%2Fpass',
      ),
    ).toEqual({
      name: 'mymaster',
      sentinels: [
        { host: 'redis-0.redis-headless', port: 26379 },
        { host: 'redis-1.redis-headless', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      password: 'data-pass',
      db: 1,
      sentinelPassword: 's/pass',
    });
    expect(redisConnectionOptions('redis+sentinel://127.0.0.1:26379/group')).toEqual({
      name: 'group',
      sentinels: [{ host: '127.0.0.1', port: 26379 }],
    });
  });

  it('when it cannot be read, then the environment is refused with the reason and without the URL (it holds a password)', () => {
    const problems = (url: string) => {
      const result = redisUrlSchema.safeParse(url);
      return result.success ? [] : result.error.issues.map((issue) => issue.message);
    };
    expect(problems('redis+sentinel://:pw@host:26379')).toEqual([expect.stringContaining('names its master group')]);
    expect(problems('redis+sentinel://:pw@host:26379/m/x')).toEqual([expect.stringContaining('<db number>')]);
    expect(problems('redis+sentinel://:pw@host:26379/m?password=x')).toEqual([expect.stringContaining('not password')]);
    expect(problems('http://:pw@host')).toEqual([expect.stringContaining('unsupported scheme')]);
    expect(problems('redis://:pw@host/zero')).toEqual([expect.stringContaining('database number')]);
    expect(problems('localhost:6379').join(' ')).not.toContain('localhost');
    for (const message of problems('redis+sentinel://:secret-pw@host:26379')) expect(message).not.toContain('secret-pw');
    expect(problems('redis://127.0.0.1:6379')).toEqual([]);
  });
});
