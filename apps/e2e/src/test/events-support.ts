/**
 * What the events tests share: waiting for something that arrives asynchronously (an event, a delivery), and deleting
 * the webhooks a file made.
 */
import { http } from '@platform/testing';

export { waitFor } from '@platform/testing';

/**
 * The webhooks a test file made on the shared stack, deleted when the file ends. Left behind, an endpoint whose receiver
 * has closed takes its share of every later test's events (a ['*'] admin endpoint, all of them) with the retries of a
 * refused connection, and the one deliveries worker of the suite spends its attempts there instead of on the files
 * still running.
 */
export function webhookCleanup(restUrl: string) {
  const made: Array<{ id: string; token: string }> = [];
  return {
    /** Delete this webhook (as `token`, its owner or an admin) when the file ends. */
    add(id: string | number, token: string): void {
      made.push({ id: String(id), token });
    },
    async removeAll(): Promise<void> {
      const answers = await Promise.all(
        made.splice(0).map(async ({ id, token }) => {
          const answer = await http.delete(`${restUrl}/webhooks/${encodeURIComponent(id)}`, { token });
          return { id, status: answer.status };
        }),
      );
      // 404: the test deleted it itself (or deleted its owner, whose webhooks go with the account).
      const failed = answers.filter((a) => a.status !== 204 && a.status !== 404);
      if (failed.length > 0) throw new Error(`webhooks not deleted: ${JSON.stringify(failed)}`);
    },
  };
}
