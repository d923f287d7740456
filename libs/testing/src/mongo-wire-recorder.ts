/**
 * A TCP proxy in front of a MongoDB wire-protocol server (FerretDB here) that records every command its clients send:
 * the processes under test connect to the proxy's URL and need no hook of their own, so what is recorded is exactly
 * what production code sends. Hand-written because no kept library parses the wire protocol outside the driver; it
 * reads only OP_MSG (opcode 2013, what every current driver sends) and passes every byte through unchanged.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { BSON, type Document } from 'mongodb';

const OP_MSG = 2013;
const OP_COMPRESSED = 2012;
/** Whether a further message follows (a "more to come" exhaust); the checksum flag adds 4 bytes at the end. */
const CHECKSUM_PRESENT = 1;

export interface RecordedCommand {
  /** The command's name (its first key: find, aggregate, update, ...). */
  name: string;
  /** The database (`$db`). */
  db: string;
  /** The command document, with any document sequences (kind-1 sections) set under their identifiers. */
  body: Document;
  /** When its last byte was sent (`performance.now()` of the recording process). */
  sentAt?: number;
  /** Milliseconds from the command's last byte sent to its reply's arrival (set once the reply came). */
  ms?: number;
}

export interface MongoWireRecorder {
  /** The proxy's connection string: give it to the processes under test in place of the server's. */
  url: string;
  commands: RecordedCommand[];
  close(): Promise<void>;
}

/** Parses one OP_MSG (the whole message, header included) into its command; null for any other opcode. */
export function parseOpMsg(message: Buffer): RecordedCommand | null {
  const opCode = message.readInt32LE(12);
  if (opCode === OP_COMPRESSED) throw new Error('the wire recorder reads uncompressed messages only (no compressors in the URL)');
  if (opCode !== OP_MSG) return null;
  const flags = message.readUInt32LE(16);
  const end = message.length - (flags & CHECKSUM_PRESENT ? 4 : 0);
  let offset = 20;
  let body: Document | null = null;
  const sequences: Record<string, Document[]> = {};
  while (offset < end) {
    const kind = message.readUInt8(offset);
    offset += 1;
    const size = message.readInt32LE(offset);
    if (kind === 0) {
      body = BSON.deserialize(message.subarray(offset, offset + size));
      offset += size;
    } else {
      const sectionEnd = offset + size;
      const nameEnd = message.indexOf(0, offset + 4);
      const identifier = message.toString('utf8', offset + 4, nameEnd);
      let cursor = nameEnd + 1;
      const documents: Document[] = [];
      while (cursor < sectionEnd) {
        const docSize = message.readInt32LE(cursor);
        documents.push(BSON.deserialize(message.subarray(cursor, cursor + docSize)));
        cursor += docSize;
      }
      sequences[identifier] = documents;
      offset = sectionEnd;
    }
  }
  if (!body) return null;
  const name = Object.keys(body)[0] ?? '';
  return { name, db: String(body['$db'] ?? ''), body: { ...body, ...sequences } };
}

/** Starts the proxy on a free port of 127.0.0.1 in front of `target` (host:port of the real server). */
export async function startMongoWireRecorder(targetUrl: string): Promise<MongoWireRecorder> {
  const target = new URL(targetUrl);
  const commands: RecordedCommand[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 27017), target.hostname);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    // Commands waiting for their reply, by request id (the header's second field; a reply's third names it).
    const waiting = new Map<number, { command: RecordedCommand; sentAt: number }>();
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const size = pending.readInt32LE(0);
        const command = parseOpMsg(pending.subarray(0, size));
        if (command) {
          commands.push(command);
          command.sentAt = performance.now();
          waiting.set(pending.readInt32LE(4), { command, sentAt: command.sentAt });
        }
        pending = pending.subarray(size);
      }
    });
    let replies = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      replies = Buffer.concat([replies, chunk]);
      while (replies.length >= 12 && replies.length >= replies.readInt32LE(0)) {
        const sent = waiting.get(replies.readInt32LE(8));
        if (sent) {
          sent.command.ms = performance.now() - sent.sentAt;
          waiting.delete(replies.readInt32LE(8));
        }
        replies = replies.subarray(replies.readInt32LE(0));
      }
    });
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    upstream.on('close', closeBoth).on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('wire recorder: no TCP address');
  return {
    url: `mongodb://127.0.0.1:${address.port}/${target.search}`,
    commands,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
