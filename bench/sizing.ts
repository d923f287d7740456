/**
 * `npm run bench:sizing`: what the embedded default database (FerretDB v1.24.2 on SQLite) costs per query shape as the
 * users collection grows (issue 19, Deliver 4). For each size it seeds a fresh FerretDB with the users service's
 * documents and indexes, then times the shapes the users repository issues (median of several runs, client wall
 * time, one at a time) and asks FerretDB's `explain` what it pushed down to SQLite. Numbers: docs/performance.md.
 *
 *   npm run bench:sizing                    # 1,000 / 10,000 / 100,000 users
 *   npm run bench:sizing -- --sizes=1000,5000
 *   npm run bench:sizing -- --sizes=100000 --runs=1 --only=findOne,countDocuments   # shapes whose name starts so
 */
import { join } from 'node:path';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { foldEmail, foldUsername } from '@platform/contracts';
import { makeTempDir, startFerretDb } from '@platform/dev-stack';

const log = (message: string) => process.stdout.write(`[sizing] ${message}\n`);

type Users = Collection<{ _id: number } & Document>;

interface Shape {
  name: string;
  run: (users: Users, size: number) => Promise<unknown>;
  /** The find/count command whose explain shows what FerretDB pushed down. */
  explain?: (size: number) => Document;
}

const username = (id: number) => `sizing_user_${id}`;

const SHAPES: Shape[] = [
  {
    name: 'findOne {_id: 1} (first inserted)',
    run: (u) => u.findOne({ _id: 1 }),
    explain: () => ({ find: 'users', filter: { _id: 1 }, limit: 1 }),
  },
  {
    name: 'findOne {_id: n} (last inserted)',
    run: (u, n) => u.findOne({ _id: n }),
    explain: (n) => ({ find: 'users', filter: { _id: n }, limit: 1 }),
  },
  {
    name: 'find {_id: {$in: [n/2]}} limit 1 (entity batch)',
    run: (u, n) =>
      u
        .find({ _id: { $in: [Math.ceil(n / 2)] } })
        .limit(1)
        .toArray(),
    explain: (n) => ({ find: 'users', filter: { _id: { $in: [Math.ceil(n / 2)] } }, limit: 1 }),
  },
  {
    name: 'findOne {usernameFolded} (login, registration clash)',
    run: (u, n) => u.findOne({ usernameFolded: foldUsername(username(n)) }),
    explain: (n) => ({ find: 'users', filter: { usernameFolded: foldUsername(username(n)) }, limit: 1 }),
  },
  {
    name: 'find {role: member} sort {_id: 1} limit 20 (first page)',
    run: (u) => u.find({ role: 'member' }).sort({ _id: 1 }).limit(20).toArray(),
    explain: () => ({ find: 'users', filter: { role: 'member' }, sort: { _id: 1 }, limit: 20 }),
  },
  {
    name: 'find {} sort {username: 1, _id: 1} limit 20',
    run: (u) => u.find({}).sort({ username: 1, _id: 1 }).limit(20).toArray(),
    explain: () => ({ find: 'users', filter: {}, sort: { username: 1, _id: 1 }, limit: 20 }),
  },
  {
    name: 'find {} limit 20 (no sort)',
    run: (u) => u.find({}).limit(20).toArray(),
    explain: () => ({ find: 'users', filter: {}, limit: 20 }),
  },
  { name: 'countDocuments {} (totalCount)', run: (u) => u.countDocuments({}) },
  { name: 'countDocuments {role: member}', run: (u) => u.countDocuments({ role: 'member' }) },
];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function seed(client: MongoClient, size: number): Promise<void> {
  const users = client.db('api_users').collection('users');
  const created = new Date('2024-01-01T00:00:00Z');
  for (let start = 1; start <= size; start += 2_000) {
    const docs: Document[] = [];
    for (let id = start; id < Math.min(start + 2_000, size + 1); id += 1) {
      const name = username(id);
      const email = `${name}@sizing.example.com`;
      docs.push({
        _id: id,
        username: name,
        email,
        usernameFolded: foldUsername(name),
        emailFolded: foldEmail(email),
        fullName: null,
        isActive: true,
        role: id === 1 ? 'admin' : 'member',
        createdAt: created,
        updatedAt: created,
      });
    }
    await users.insertMany(docs, { ordered: false });
  }
  // The users service's indexes (apps/users/src/data-access/user-repository.ts), so the database is as deployed.
  await users.createIndex({ usernameFolded: 1 }, { unique: true });
  await users.createIndex({ emailFolded: 1 }, { unique: true });
  await users.createIndex({ role: 1, _id: 1 });
  await users.createIndex({ username: 1, _id: 1 });
}

async function main(): Promise<void> {
  const sizesArg = process.argv.find((a) => a.startsWith('--sizes='));
  const sizes = sizesArg
    ? sizesArg.slice('--sizes='.length).split(',').map(Number)
    : [1_000, 10_000, 100_000];
  const runsArg = process.argv.find((a) => a.startsWith('--runs='));
  const onlyArg = process.argv.find((a) => a.startsWith('--only='));
  const only = onlyArg ? onlyArg.slice('--only='.length).split(',') : null;
  const shapes = SHAPES.filter((shape) => !only || only.some((prefix) => shape.name.startsWith(prefix)));
  const rows: Array<{ shape: string; size: number; ms: number; pushdown: string }> = [];
  for (const size of sizes) {
    const tmp = makeTempDir('api-sizing-');
    const ferret = await startFerretDb({
      dataDir: join(tmp.path, 'ferretdb'),
      logFile: join(tmp.path, 'ferretdb.log'),
      log,
    });
    const client = new MongoClient(ferret.url);
    try {
      await client.connect();
      const started = Date.now();
      await seed(client, size);
      log(`${size} users seeded in ${Date.now() - started} ms`);
      const users: Users = client.db('api_users').collection('users');
      for (const shape of shapes) {
        await shape.run(users, size);
        const times: number[] = [];
        const runs = runsArg ? Number(runsArg.slice('--runs='.length)) : size >= 100_000 ? 3 : 7;
        for (let i = 0; i < runs; i += 1) {
          const t0 = process.hrtime.bigint();
          await shape.run(users, size);
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        let pushdown = '';
        if (shape.explain) {
          const explained = await client.db('api_users').command({ explain: shape.explain(size) });
          pushdown = ['filterPushdown', 'sortPushdown', 'limitPushdown']
            .filter((k) => k in explained)
            .map((k) => `${k.replace('Pushdown', '')}=${String(explained[k])}`)
            .join(' ');
        }
        const ms = Math.round(median(times) * 10) / 10;
        rows.push({ shape: shape.name, size, ms, pushdown });
        log(`${size} users: ${shape.name}: ${ms} ms ${pushdown}`);
      }
    } finally {
      await client.close();
      await ferret.process.stop('SIGTERM', 5_000);
      tmp.remove();
    }
  }
  process.stdout.write(
    `\n| shape | ${sizes.map((s) => `${s.toLocaleString('en-US')} users`).join(' | ')} | FerretDB pushdown |\n`,
  );
  process.stdout.write(`|---|${sizes.map(() => '---|').join('')}---|\n`);
  for (const shape of shapes) {
    const cells = sizes.map(
      (size) => `${rows.find((r) => r.shape === shape.name && r.size === size)?.ms ?? '-'} ms`,
    );
    process.stdout.write(
      `| ${shape.name} | ${cells.join(' | ')} | ${rows.find((r) => r.shape === shape.name)?.pushdown || 'n/a (aggregate)'} |\n`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `sizing failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
