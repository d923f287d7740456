/**
 * Bounds a label whose values come from callers (GraphQL operation names, error codes): the first `max` distinct
 * values are kept, later ones are reported as "other", so no client can grow a series set without bound.
 */
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,127}$/;

export class LabelBudget {
  private readonly seen = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly missing = 'anonymous',
  ) {}

  /** The value as a label: `missing` when absent or not a GraphQL name, "other" beyond the budget. */
  label(value: string | undefined | null): string {
    if (!value || !NAME.test(value)) return this.missing;
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(value);
    return value;
  }
}

/** GraphQL operation names, shared by the HTTP and GraphQL metrics of a process. */
export const operationNames = new LabelBudget(200);
