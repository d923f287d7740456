import { z } from 'zod';
import { isSafeText, nonBlankText, text, UNSAFE_TEXT_MESSAGE } from './text';
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

describe('non-blank text fields', () => {
  const messagesOf = (value: string) => {
    const parsed = nonBlankText().safeParse(value);
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
  };

  it.each([' ', '\t\n ', '\u00a0'])('when a value is only whitespace (%j), then it is refused as blank', (value) => {
    expect(messagesOf(value)).toEqual(['must not be blank']);
  });

  it.each(['a', '  lamp  ', '\tx', 'émoji 😀'])('when a value has a visible character (%j), then it is accepted', (value) => {
    expect(messagesOf(value)).toEqual([]);
  });

  it.each(['\u0000', ' \u0000', 'a\u0000', `${'a'.repeat(19_999)}\u0000`])(
    'when a value holds NUL (%j), then it is refused as unsafe text, not as blank',
    (value) => {
      expect(messagesOf(value)).toEqual([UNSAFE_TEXT_MESSAGE]);
    },
  );

  it('when a value has an unpaired surrogate, then it is refused as unsafe text', () => {
    expect(messagesOf('a\ud800')).toEqual([UNSAFE_TEXT_MESSAGE]);
  });

  it('when the OpenAPI schema of a post is generated, then each non-blank field carries one pattern and no allOf', () => {
    const schema = z.toJSONSchema(PostCreate, { io: 'input', unrepresentable: 'any' }) as {
      $defs: Record<string, { properties: Record<string, Record<string, unknown>> }>;
    };
    for (const field of ['title', 'body']) {
      const property = schema.$defs['PostCreate']!.properties[field];
      expect(property).toMatchObject({ pattern: expect.any(String) });
      expect(property).not.toHaveProperty('allOf');
    }
  });
});
