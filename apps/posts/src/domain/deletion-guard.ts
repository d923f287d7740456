/**
 * Deletions of posts and users against the writes that race them (docs/decisions/0009): a deletion marks what it
 * deletes before sweeping the dependants, and every insert that attaches to a post or acts for a user checks the marks
 * afterwards and undoes itself when it lost the race. So no like, comment or post outlives its post or its user.
 */
import { AppError, notFound } from '@platform/errors';
import { deletedAccount, type DeletedRecord, type DeletionMarks } from '@platform/mongo';

export const deletedPost = (id: number): DeletedRecord => ({ kind: 'post', id });
export const deletedUser = deletedAccount;

export class DeletionGuard {
  constructor(private readonly marks: DeletionMarks) {}

  /** Before sweeping a record's dependants (idempotent). */
  markDeleted(record: DeletedRecord): Promise<void> {
    return this.marks.mark(record);
  }

  /**
   * After an insert by `actorId` (onto `post`, when given): when the actor's account, the post or its author's account
   * is being deleted, undoes the insert and refuses (401 for a deleted account, 404 for a deleted post).
   */
  async keepUnlessDeleted(
    actorId: number,
    post: { _id: number; authorId: number } | null,
    undo: () => Promise<unknown>,
  ): Promise<void> {
    const actor = deletedUser(actorId);
    const records = post ? [actor, deletedPost(post._id), deletedUser(post.authorId)] : [actor];
    const marked = await this.marks.undoIfMarked(records, undo);
    if (marked.length === 0) return;
    if (marked.includes(actor) || !post) throw new AppError('UNAUTHENTICATED', 'Invalid token');
    throw notFound('Post', post._id);
  }
}
