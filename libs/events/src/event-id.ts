/** Event ids: `evt_` + a monotonic ULID (the `ulid` package): unique across processes and sortable by creation time. */
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export const EVENT_ID_PREFIX = 'evt_';

export const newEventId = (at: number = Date.now()): string => `${EVENT_ID_PREFIX}${next(at)}`;

/** `evt_` + 26 Crockford base32 characters. */
export const EVENT_ID_PATTERN = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

export const isEventId = (value: unknown): value is string =>
  typeof value === 'string' && EVENT_ID_PATTERN.test(value);
