/**
 * Seeds a fresh database with the benchmark's data set, straight into each service's own database with the official
 * driver and the documents' real shapes (apps/<service>/src/data-access/*-repository.ts), and reserves each id
 * sequence up to the seeded ids (@platform/mongo id claims) so later inserts through the API do not collide.
 */
import { MongoClient, type Db, type Document } from 'mongodb';
import { hashPassword } from '@platform/auth';
import { foldEmail, foldUsername } from '@platform/contracts';
import { reserveSequenceUpTo } from '@platform/mongo';

export interface SeedSizes {
  users: number;
  items: number;
  posts: number;
}

export const FULL_SEED: SeedSizes = { users: 10_000, items: 100_000, posts: 20_000 };

/** Items 1..HOT_OWNED are owned by users 1..HOT_OWNED (the bench's default hot set: `--hot=10`). */
export const HOT_OWNED = 10;

/** Every seeded user shares this password (one argon2id hash, computed once). */
export const SEED_PASSWORD = 'bench-password-1';
/** User 1 is an admin (the readers' token); the others are members. */
export const seedUsername = (id: number): string => `bench_user_${id}`;

/** The services' database names (`MONGO_DB` defaults). */
export const DATABASES = { users: 'api_users', items: 'api_items', auth: 'api_auth', posts: 'api_posts' } as const;

const BATCH = 2_000;
const WORDS = ['red', 'blue', 'green', 'small', 'large', 'steel', 'wooden', 'lamp', 'chair', 'table', 'desk', 'mug', 'pen', 'book', 'clock', 'shelf'];

/** Deterministic pseudo-random numbers (mulberry32), so every run seeds the same data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function insertInBatches(db: Db, collection: string, count: number, make: (id: number) => Document): Promise<void> {
  const target = db.collection(collection);
  for (let start = 1; start <= count; start += BATCH) {
    const docs: Document[] = [];
    for (let id = start; id < Math.min(start + BATCH, count + 1); id += 1) docs.push(make(id));
    await target.insertMany(docs, { ordered: false });
  }
}

export async function seedDatabase(mongoUrl: string, sizes: SeedSizes, log: (message: string) => void): Promise<void> {
  const started = Date.now();
  const client = new MongoClient(mongoUrl, { appName: 'bench-seed' });
  await client.connect();
  try {
    const passwordHash = await hashPassword(SEED_PASSWORD);
    const random = seededRandom(42);
    const created = new Date('2024-01-01T00:00:00Z');
    const users = client.db(DATABASES.users);
    const auth = client.db(DATABASES.auth);
    const items = client.db(DATABASES.items);
    const posts = client.db(DATABASES.posts);

    await insertInBatches(users, 'users', sizes.users, (id) => ({
      _id: id,
      username: seedUsername(id),
      email: `${seedUsername(id)}@bench.example.com`,
      // The folded forms the users service keeps for its case-insensitive unique indexes (user-repository.ts).
      usernameFolded: foldUsername(seedUsername(id)),
      emailFolded: foldEmail(`${seedUsername(id)}@bench.example.com`),
      fullName: `Bench User ${id}`,
      isActive: true,
      role: id === 1 ? 'admin' : 'member',
      createdAt: created,
      updatedAt: created,
    }));
    await reserveSequenceUpTo(users, 'users', sizes.users);
    await insertInBatches(auth, 'credentials', sizes.users, (id) => ({
      _id: id,
      username: seedUsername(id),
      usernameFolded: foldUsername(seedUsername(id)),
      passwordHash,
      createdAt: created,
      updatedAt: created,
    }));
    log(`seeded ${sizes.users} users and credentials (${Date.now() - started} ms)`);

    await insertInBatches(items, 'items', sizes.items, (id) => {
      const a = WORDS[Math.floor(random() * WORDS.length)] ?? 'plain';
      const b = WORDS[Math.floor(random() * WORDS.length)] ?? 'thing';
      const description = random() < 0.5 ? null : `A ${a} ${b}, number ${id}.`;
      const priceCents = 100 + Math.floor(random() * 99_900);
      const owner = 1 + Math.floor(random() * sizes.users);
      return {
        _id: id,
        name: `${a} ${b} ${id}`,
        description,
        priceCents,
        // The hot items (1..HOT_OWNED) belong to the hot users, so the owner join of a hot item reads early documents
        // only and measures the application path (bench-cli's hot set); every other owner stays random.
        ownerId: id <= HOT_OWNED ? ((id - 1) % HOT_OWNED) + 1 : owner,
        createdAt: created,
        updatedAt: created,
      };
    });
    await reserveSequenceUpTo(items, 'items', sizes.items);
    log(`seeded ${sizes.items} items (${Date.now() - started} ms)`);

    await insertInBatches(posts, 'posts', sizes.posts, (id) => ({
      _id: id,
      authorId: 1 + Math.floor(random() * sizes.users),
      title: `Post ${id} about ${WORDS[id % WORDS.length] ?? 'things'}`,
      body: `Body of post ${id}. `.repeat(8),
      createdAt: created,
      updatedAt: created,
    }));
    await reserveSequenceUpTo(posts, 'posts', sizes.posts);
    log(`seeded ${sizes.posts} posts (${Date.now() - started} ms)`);
  } finally {
    await client.close();
  }
}
