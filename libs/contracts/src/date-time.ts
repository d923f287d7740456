/**
 * RFC 3339 date-times as every transport takes them (the REST feed's `occurred_*`, GraphQL's `DateTime` inputs): the
 * grammar (`T` and `Z` in either case) and a real calendar instant (no month 13, no February 30, no hour 24).
 */
const RFC3339_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

export const DATE_TIME_MESSAGE = 'must be an RFC 3339 date-time, such as 2026-01-31T12:00:00Z';

/** True for an RFC 3339 date-time naming a real instant (seconds 0-59: JavaScript has no leap second). */
export function isRfc3339DateTime(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 40) return false;
  const parts = RFC3339_DATE_TIME.exec(value);
  if (!parts) return false;
  const [year, month, day, hour, minute, second, offsetHour = 0, offsetMinute = 0] = parts
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetHour <= 23 &&
    offsetMinute <= 59
  );
}
