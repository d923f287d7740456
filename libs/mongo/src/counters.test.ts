/**
 * Against the real FerretDB: concurrent allocations never hand out the same id twice, ids are never reused (a process
 * that starts again takes a block above every claim), and a process claims a block of ids at once instead of reading
 * and inserting per id (ADR 0020).
 */
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { suiteDatabases, testInfra } from '@platform/testing';
import { ensureIndexes } from './indexes';
import { ID_BLOCK_SIZE, nextSequenceValue, reserveSequenceUpTo } from './counters';

describe('nextSequenceValue on a real server', () => {
  const databases = suiteDatabases();

  it('when 250 allocations race in two processes, then all are distinct, and each process claims whole blocks', async () => {
    const db = databases.fresh('seq_');
    await ensureIndexes(db, []);
    // Two Db objects stand for two processes: each keeps its own blocks.
    const other = await MongoClient.connect(testInfra().mongoUrl);
    try {
      const twin = other.db(db.databaseName);
      const values = await Promise.all(
        Array.from({ length: 250 }, (_, i) => nextSequenceValue(i % 2 === 0 ? db : twin, 'things')),
      );
      expect(new Set(values).size).toBe(250);
      expect(Math.min(...values)).toBeGreaterThanOrEqual(1);
      // Restarted (a new process): above every block handed out before, never a value of one.
      const restarted = (await MongoClient.connect(testInfra().mongoUrl)).db(db.databaseName);
      const next = await nextSequenceValue(restarted, 'things');
      expect(next).toBeGreaterThan(Math.max(...values));
      await restarted.client.close();
    } finally {
      await other.close();
    }
  });

  it('when a block is in hand, then an allocation sends nothing to the database', async () => {
    const client = await MongoClient.connect(testInfra().mongoUrl, { monitorCommands: true });
    try {
      const db = client.db(databases.fresh('seqcost_').databaseName);
      const commands: string[] = [];
      client.on('commandStarted', (event: CommandStartedEvent) => commands.push(event.commandName));
      for (let i = 0; i < ID_BLOCK_SIZE; i += 1) await nextSequenceValue(db, 'things');
      // One read of the highest claim (this process's first use) and one block claim for a hundred ids.
      expect(commands.filter((name) => name === 'insert')).toHaveLength(1);
      expect(commands.filter((name) => name === 'find')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('when a bulk load reserved values, then allocation starts above them', async () => {
    const db = databases.fresh('seqres_');
    await reserveSequenceUpTo(db, 'things', 12_345);
    expect(await nextSequenceValue(db, 'things')).toBeGreaterThan(12_345);
  });
});
