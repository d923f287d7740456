/** Integer ids allocated atomically from a counters collection ($inc with upsert); a value is never handed out twice. */
import type { Db } from 'mongodb';

export const COUNTERS_COLLECTION = 'counters';

interface CounterDocument {
  _id: string;
  value: number;
}

export async function nextSequenceValue(db: Db, name: string): Promise<number> {
  const result = await db
    .collection<CounterDocument>(COUNTERS_COLLECTION)
    .findOneAndUpdate({ _id: name }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' });
  if (!result) throw new Error(`sequence ${name} could not be advanced`);
  return result.value;
}
