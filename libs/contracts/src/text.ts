/**
 * Text as the platform accepts it: no NUL and no unpaired UTF-16 surrogate. NUL ends strings in C-based tools and
 * logs; a lone surrogate has no UTF-8 form, so BSON would store U+FFFD instead (two different inputs, one stored
 * value). Every input string is built on `text()`, so the rule is written once and names the field that breaks it.
 */
import { z } from 'zod';

// NUL is what this pattern is for, so the rule against control characters in patterns does not apply.
// eslint-disable-next-line no-control-regex
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

const hasNoLoneSurrogate = (value: string): boolean => !LONE_SURROGATE.test(value);

/** True when the string has neither NUL nor an unpaired surrogate (pairs, i.e. emoji and the like, are fine). */
export const isSafeText = (value: string): boolean => !UNSAFE_TEXT.test(value);

/**
 * The NUL half of the rule as a pattern, so the OpenAPI document declares it and generated clients and fuzzers keep to
 * it. Unpaired surrogates stay a check of their own: JSON Schema validators outside JavaScript (Rust's and Python's
 * regex engines) cannot compile a surrogate range, and would then ignore the whole pattern.
 */
// eslint-disable-next-line no-control-regex
const NO_NUL = /^[^\u0000]*$/u;

/** A string input field; chain bounds and patterns onto it as onto `z.string()`. */
export const text = () =>
  z
    .string()
    .regex(NO_NUL, UNSAFE_TEXT_MESSAGE)
    .refine(hasNoLoneSurrogate, UNSAFE_TEXT_MESSAGE);

/**
 * Not blank: no NUL and at least one character that is not whitespace, as ONE pattern. Two patterns (`NO_NUL` and
 * `\S`) become an `allOf` in the OpenAPI document, which a generator that honours both (Schemathesis' boundary cases
 * for a 20,000-character body) can only satisfy by generating and filtering: three minutes for `POST /posts` alone.
 * Leading whitespace, one non-space non-NUL character, then anything but NUL: linear time for any input (no nested
 * choice to backtrack over), checked by text.spec.ts.
 */
// eslint-disable-next-line no-control-regex
const NON_BLANK = /^\s*[^\s\u0000][^\u0000]*$/u;

/** A string input field that must not be blank (nor hold NUL or an unpaired surrogate). */
export const nonBlankText = () =>
  z
    .string()
    .regex(NON_BLANK, {
      error: (issue) => (String(issue.input).includes('\u0000') ? UNSAFE_TEXT_MESSAGE : 'must not be blank'),
    })
    .refine(hasNoLoneSurrogate, UNSAFE_TEXT_MESSAGE);
