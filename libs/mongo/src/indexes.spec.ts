import { namedIndexes } from './indexes';

describe('namedIndexes', () => {
  it("when keys are given, then each index carries MongoDB's default name for its key", () => {
    expect(namedIndexes('comments', { postId: 1, authorId: -1, _id: 1 }, { userId: 1 })).toEqual([
      {
        collection: 'comments',
        key: { postId: 1, authorId: -1, _id: 1 },
        options: { name: 'postId_1_authorId_-1__id_1' },
      },
      { collection: 'comments', key: { userId: 1 }, options: { name: 'userId_1' } },
    ]);
  });
});
