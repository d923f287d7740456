import { InFlightReads } from './inflight-reads';

/**
 * A record and its reads as a subgraph serves them: a read takes the value when it is sent and answers when the test
 * releases it, so a write can return while a read sent before it is still on its way.
 */
function fakeStore() {
  let value = 0;
  const inFlight: Array<() => void> = [];
  let sent = 0;
  return {
    write: (next: number) => {
      value = next;
    },
    fetch: (): Promise<{ value: number }> => {
      sent += 1;
      const read = { value };
      return new Promise((resolve) => inFlight.push(() => resolve(read)));
    },
    failing: (): Promise<{ value: number }> => {
      sent += 1;
      return new Promise((_, reject) => inFlight.push(() => reject(new Error('subgraph down'))));
    },
    /** Answers the oldest fetch on its way. */
    releaseOne: async () => {
      inFlight.shift()?.();
      // Lets the settled fetch's continuations (the next fetch's start) run.
      await new Promise((resolve) => setImmediate(resolve));
    },
    get sent() {
      return sent;
    },
    get onItsWay() {
      return inFlight.length;
    },
  };
}

describe('InFlightReads', () => {
  it("when reads share by generation, then identical reads in flight share the first one's fetch", async () => {
    const store = fakeStore();
    const reads = new InFlightReads<{ value: number }>('users');
    const answers = [1, 2, 3].map(() => reads.run('user 1 gen 7', store.fetch, 'shared'));
    expect(store.sent).toBe(1);
    await store.releaseOne();
    expect(await Promise.all(answers)).toEqual([{ value: 0 }, { value: 0 }, { value: 0 }]);
    // Each waiter has its own copy: the executor merges into what it gets.
    const [first, second] = await Promise.all(answers);
    expect(first).not.toBe(second);
  });

  it('when reads have no generation and a write returns while a read is on its way, then a read arriving after the write is answered what the write left', async () => {
    const store = fakeStore();
    const reads = new InFlightReads<{ value: number }>('users');
    const before = reads.run('user 1', store.fetch, 'ordered');
    store.write(1);
    // Arrives after the write returned: joining the fetch on its way would answer 0.
    const after = reads.run('user 1', store.fetch, 'ordered');
    const alsoAfter = reads.run('user 1', store.fetch, 'ordered');
    expect(store.sent).toBe(1);
    await store.releaseOne();
    expect(await before).toEqual({ value: 0 });
    // The reads that arrived meanwhile share one fetch, sent when the first settled.
    expect(store.sent).toBe(2);
    await store.releaseOne();
    expect(await after).toEqual({ value: 1 });
    expect(await alsoAfter).toEqual({ value: 1 });
    expect(await after).not.toBe(await alsoAfter);
  });

  it('when reads have no generation, then a key has at most one fetch on its way and one gathering, however many arrive', async () => {
    const store = fakeStore();
    const reads = new InFlightReads<{ value: number }>('users');
    const answers: Array<Promise<{ value: number }>> = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 10; i++) answers.push(reads.run('user 1', store.fetch, 'ordered'));
      expect(store.onItsWay).toBe(1);
      await store.releaseOne();
    }
    await store.releaseOne();
    await Promise.all(answers);
    // The first read's fetch, then one per round for the reads that gathered behind it.
    expect(store.sent).toBe(4);
  });

  it('when the fetch on its way fails, then the reads gathered behind it still get their own', async () => {
    const store = fakeStore();
    const reads = new InFlightReads<{ value: number }>('users');
    const failed = reads.run('user 1', store.failing, 'ordered');
    const next = reads.run('user 1', store.fetch, 'ordered');
    await store.releaseOne();
    await expect(failed).rejects.toThrow('subgraph down');
    await store.releaseOne();
    expect(await next).toEqual({ value: 0 });
  });

  it('when keys differ (another caller or read), then nothing is shared', async () => {
    const store = fakeStore();
    const reads = new InFlightReads<{ value: number }>('users');
    const answers = [reads.run('alice', store.fetch, 'ordered'), reads.run('bob', store.fetch, 'ordered')];
    expect(store.sent).toBe(2);
    await store.releaseOne();
    await store.releaseOne();
    await Promise.all(answers);
  });
});
