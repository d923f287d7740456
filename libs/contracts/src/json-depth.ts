/**
 * How deep a parsed JSON value may nest (objects and arrays) on every transport, checked right after parsing and
 * without recursion, so nothing later (variable coercion, hashing, logging, validation) recurses over a deeper one.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Where `value` first nests deeper than `max` levels (the top-level key it is under, `[]` for the value itself), or
 * undefined when it does not. A container is one level; a scalar inside it adds none.
 */
export function jsonTooDeep(value: unknown, max = MAX_JSON_DEPTH): { under: string | undefined } | undefined {
  const pending: Array<{ value: unknown; depth: number; under: string | undefined }> = [
    { value, depth: 1, under: undefined },
  ];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > max) return { under: next.under };
    const entries = Array.isArray(next.value) ? next.value.entries() : Object.entries(next.value);
    for (const [key, child] of entries) {
      if (typeof child === 'object' && child !== null) {
        pending.push({ value: child, depth: next.depth + 1, under: next.under ?? String(key) });
      }
    }
  }
  return undefined;
}

/** The message of a refusal by jsonTooDeep, naming what nests too deep (`variables`, or the body). */
export const jsonTooDeepMessage = (under: string | undefined, what = 'the body'): string =>
  `${under === undefined ? what : `\`${under}\``} nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`;
