/**
 * The benchmark's floor: a minimal express + mongodb server on the services' own databases (same driver, same pool
 * size as the services), without federation, validation, auth or logging. `GET /users/:id` reads one user (one
 * `findOne` with a projection); `PATCH /users/:id` and `PATCH /items/:id` (issue 29) issue one `updateOne` by the same
 * integer id with a `$set` of the given field (`full_name`, `price`) and `updatedAt`: the least a write of that record
 * costs the database, no version, no claim, no read. Started by the bench runner with MONGO_URL and PORT; bundled into
 * dist/tools/bench-direct.js.
 */
import express from 'express';
import { MongoClient } from 'mongodb';
import type { BenchItem, BenchUser } from './bench-user';

async function main(): Promise<void> {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/', { maxPoolSize: 50, minPoolSize: 2, appName: 'bench-direct' });
  await client.connect();
  const users = client.db(process.env['MONGO_DB'] ?? 'api_users').collection<BenchUser>('users');
  const items = client.db(process.env['ITEMS_MONGO_DB'] ?? 'api_items').collection<BenchItem>('items');
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/users/:id', async (req, res) => {
    const id = Number(req.params.id);
    const doc = Number.isInteger(id) ? await users.findOne({ _id: id }, { projection: { username: 1, email: 1, fullName: 1, isActive: 1, role: 1 } }) : null;
    if (!doc) {
      res.status(404).json({ detail: 'User not found' });
      return;
    }
    res.json({ id: doc._id, username: doc.username, email: doc.email, full_name: doc.fullName, is_active: doc.isActive, role: doc.role });
  });
  app.patch('/users/:id', async (req, res) => {
    const id = Number(req.params.id);
    const body = (req.body ?? {}) as { full_name?: string | null };
    const result = await users.updateOne({ _id: id }, { $set: { fullName: body.full_name ?? null, updatedAt: new Date() } });
    if (result.matchedCount === 0) res.status(404).json({ detail: 'User not found' });
    else res.json({ id });
  });
  app.patch('/items/:id', async (req, res) => {
    const id = Number(req.params.id);
    const body = (req.body ?? {}) as { price?: number };
    const result = await items.updateOne({ _id: id }, { $set: { priceCents: Math.round((body.price ?? 0) * 100), updatedAt: new Date() } });
    if (result.matchedCount === 0) res.status(404).json({ detail: 'Item not found' });
    else res.json({ id });
  });
  const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
  const stop = () => {
    server.close();
    void client.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`direct server failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
