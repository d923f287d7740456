import { isSafeText, text } from './text';
import { CommentCreate, ItemCreate, PostCreate, UserCreate, UserUpdate, ApiKeyCreate, TokenRequest, parseInput } from './index';
import { AppError } from '@platform/errors';

const UNSAFE = ['a\u0000b', '\u0000', 'x\ud800', '\ud800y', 'lone low \udc00', 'reversed \udc00\ud800'];
const SAFE = ['plain', 'émoji 😀 ok', '日本語', 'tab\tand newline\n', '\ud83d\ude00'];

function fieldsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return ((error as AppError).details ?? []).map((detail) => detail.field);
  }
  throw new Error('expected a validation error');
}

describe('text fields', () => {
  it.each(UNSAFE)('when a string holds NUL or an unpaired surrogate (%j), then it is not safe text', (value) => {
    expect(isSafeText(value)).toBe(false);
    expect(text().safeParse(value).success).toBe(false);
  });

  it.each(SAFE)('when a string is ordinary text (%j), then it is accepted', (value) => {
    expect(isSafeText(value)).toBe(true);
    expect(text().safeParse(value).success).toBe(true);
  });

  it.each([
    ['item name', 'name', ItemCreate, { name: 'lamp\u0000', price: 1 }],
    ['item description', 'description', ItemCreate, { name: 'lamp', description: 'x\ud800', price: 1 }],
    ['post title', 'title', PostCreate, { title: 'a\u0000', body: 'b' }],
    ['post body', 'body', PostCreate, { title: 'a', body: 'b\udfff' }],
    ['comment body', 'body', CommentCreate, { body: '\u0000' }],
    ['username', 'username', UserCreate, { username: 'ann\u0000', email: 'a@example.com', password: 'password-1' }],
    ['e-mail', 'email', UserCreate, { username: 'ann', email: 'a\u0000@example.com', password: 'password-1' }],
    ['password', 'password', UserCreate, { username: 'ann', email: 'a@example.com', password: 'password-1\ud800' }],
    ['full name', 'full_name', UserUpdate, { full_name: 'Ann\u0000' }],
    ['api-key name', 'name', ApiKeyCreate, { name: 'job\ud800', scopes: ['items:read'] }],
    ['login username', 'username', TokenRequest, { username: 'ann\u0000', password: 'x' }],
  ] as const)('when the %s holds NUL or a lone surrogate, then the validation error names %s', (_label, field, schema, input) => {
    expect(fieldsOf(() => parseInput(schema, input))).toContain(field);
  });
});
