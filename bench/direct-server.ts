/**
 * The benchmark's floor: a minimal express + mongodb route reading one user from the users service's database
 * (same driver, same pool size as the services), without federation, validation, auth or logging.
 * Started by the bench runner with MONGO_URL and PORT; bundled into dist/tools/bench-direct.js.
 */
import express from 'express';
import { MongoClient } from 'mongodb';
import type { BenchUser } from './bench-user';


async function main(): Promise<void> {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/', { maxPoolSize: 50, minPoolSize: 2, appName: 'bench-direct' });
  await client.connect();
  const users = client.db(process.env['MONGO_DB'] ?? 'api_users').collection<BenchUser>('users');
  const app = express();
  app.disable('x-powered-by');
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
