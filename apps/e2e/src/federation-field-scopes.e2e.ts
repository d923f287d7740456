/**
 * Field-level read rules hold however a record is reached (issue 24 item 3, OWASP API3:2023): a root field, an entity
 * reference the gateway resolves through `_entities`, a relation. Every User field is read through an item's owner, a
 * post's author and a comment's author, by the record owner's own API keys and by another member's narrowed tokens,
 * per scope set; then every Item, Post and Comment field through the relations that reach them. The expectations are
 * written out here, not read from the declarations they test.
 */
import { http } from '@platform/testing';
import { gatewayGraphql, login, rest, stack, unique } from './test/resources-support';
import { registerAccount } from './test/accounts';

jest.setTimeout(120_000);

type Scope = 'users:read' | 'items:read' | 'posts:read';

/** The scope sets a caller may hold: one read scope, two, all three. */
const SCOPE_SETS: readonly (readonly Scope[])[] = [
  ['items:read'],
  ['posts:read'],
  ['items:read', 'posts:read'],
  ['users:read', 'items:read', 'posts:read'],
];

/** Every User field and what reading it needs besides reaching the user: the public profile needs nothing more. */
const USER_FIELDS: ReadonlyArray<readonly [string, Scope | null]> = [
  ['id', null],
  ['username', null],
  ['email', 'users:read'],
  ['fullName', 'users:read'],
  ['isActive', 'users:read'],
  ['role', 'users:read'],
  ['createdAt', 'users:read'],
  ['version', 'users:read'],
  ['items(first: 1) { id }', 'items:read'],
  ['posts(first: 1) { id }', 'posts:read'],
];

/** The records a User is reached from: the root field, its variable, the relation, and the scope the root needs. */
const USER_PATHS = [
  { root: 'item', relation: 'owner', needs: 'items:read' },
  { root: 'post', relation: 'author', needs: 'posts:read' },
  { root: 'comment', relation: 'author', needs: 'posts:read' },
] as const;

/** Other records reached through relations: the path, the fields read there, the scopes the whole path needs. */
const RELATED = [
  {
    name: 'Item through a post author\'s items',
    query: 'query ($id: ID!) { post(id: $id) { author { items(first: 5) { id name description price ownerId version } } } }',
    root: 'post',
    needs: ['posts:read', 'items:read'],
  },
  {
    name: "Post through an item owner's posts",
    query:
      'query ($id: ID!) { item(id: $id) { owner { posts(first: 5) { id authorId title body likeCount createdAt updatedAt version } } } }',
    root: 'item',
    needs: ['items:read', 'posts:read'],
  },
  {
    name: "Post through a comment's post",
    query: 'query ($id: ID!) { comment(id: $id) { post { id authorId title body likeCount createdAt updatedAt version } } }',
    root: 'comment',
    needs: ['posts:read'],
  },
  {
    name: "Comment through a post's comments",
    query: 'query ($id: ID!) { post(id: $id) { comments(first: 5) { id postId authorId body createdAt updatedAt version } } }',
    root: 'post',
    needs: ['posts:read'],
  },
] as const;

interface Caller {
  label: string;
  scopes: readonly Scope[];
  headers: Record<string, string>;
}

interface GraphQLError {
  path?: Array<string | number>;
  extensions?: { code?: string };
}

const owner = { id: 0, token: '', ids: { item: '', post: '', comment: '' } };
const callers: Caller[] = [];

beforeAll(async () => {
  const account = await registerAccount(stack.restUrl, 'fscope');
  owner.id = account.id;
  owner.token = await login(account.username, account.password);
  await http.patch(rest(`/users/${account.id}`), { token: owner.token, json: { full_name: 'Field Scope' } });
  const created = async (path: string, json: unknown) => {
    const response = await http.post(rest(path), { token: owner.token, json });
    expect(response.status).toBe(201);
    return String(response.body.id);
  };
  owner.ids.item = await created('/items/', { name: `scoped ${unique()}`, price: 3 });
  owner.ids.post = await created('/posts', { title: 'Scoped', body: 'A post.' });
  owner.ids.comment = await created(`/posts/${owner.ids.post}/comments`, { body: 'A comment.' });

  const other = await registerAccount(stack.restUrl, 'fscopeo');
  for (const scopes of SCOPE_SETS) {
    // The owner's own key: the case the issue found (its own e-mail through Item.owner with items:read only).
    const key = await http.post(rest('/api-keys'), { token: owner.token, json: { name: 'field scopes', scopes } });
    expect(key.status).toBe(201);
    callers.push({ label: `the owner's API key [${scopes.join(' ')}]`, scopes, headers: { 'x-api-key': key.body.key } });
    const token = await login(other.username, other.password, scopes.join(' '));
    callers.push({ label: `another member's token [${scopes.join(' ')}]`, scopes, headers: { authorization: `Bearer ${token}` } });
  }
});

const call = (query: string, variables: Record<string, unknown>, caller: Caller) =>
  http.graphql(gatewayGraphql, query, variables, { headers: caller.headers });

const codesAt = (errors: GraphQLError[] | undefined, path: Array<string | number>) =>
  (errors ?? [])
    .filter((error) => JSON.stringify(error.path?.slice(0, path.length)) === JSON.stringify(path))
    .map((error) => error.extensions?.code);

describe('field-level read rules through entity references', () => {
  it('when each caller reads every User field through an item, a post and a comment, then only what its scopes allow answers', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const caller of callers) {
      for (const path of USER_PATHS) {
        // One alias per field: a refused field nulls its own alias only.
        const aliases = USER_FIELDS.map(([field], index) => `f${index}: ${path.relation} { ${field} }`).join(' ');
        const response = await call(`query ($id: ID!) { ${path.root}(id: $id) { ${aliases} } }`, { id: owner.ids[path.root] }, caller);
        expect(response.status).toBe(200);
        const record = response.body.data?.[path.root] as Record<string, Record<string, unknown> | null> | null;
        for (const [index, [field, needs]] of USER_FIELDS.entries()) {
          const name = field.split(/[ (]/)[0]!;
          const where = `${caller.label} ${path.root}.${path.relation}.${name}`;
          const reachable = caller.scopes.includes(path.needs);
          const allowed = reachable && (needs === null || caller.scopes.includes(needs));
          expected.push(`${where}: ${allowed ? 'answered' : 'FORBIDDEN'}`);
          const value = record?.[`f${index}`]?.[name];
          const codes = codesAt(response.body.errors, reachable ? [path.root, `f${index}`] : [path.root]);
          const answered = value !== undefined && value !== null && codes.length === 0;
          outcomes.push(`${where}: ${answered ? 'answered' : codes.includes('FORBIDDEN') && (value ?? null) === null ? 'FORBIDDEN' : `unexpected ${JSON.stringify({ value, codes })}`}`);
        }
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it("when the owner's items:read key asks for its own e-mail, then me { email } and item { owner { email } } are both FORBIDDEN; with users:read both answer", async () => {
    const narrow = callers.find((caller) => caller.label.startsWith("the owner's") && caller.scopes.length === 1 && caller.scopes[0] === 'items:read')!;
    const wide = callers.find((caller) => caller.label.startsWith("the owner's") && caller.scopes.includes('users:read'))!;
    const query = 'query ($id: ID!) { me { email } item(id: $id) { owner { email } } }';
    const refused = await call(query, { id: owner.ids.item }, narrow);
    expect(JSON.stringify(refused.body.data ?? {})).not.toContain('@example.com');
    expect(codesAt(refused.body.errors, ['me'])).toEqual(['FORBIDDEN']);
    expect(codesAt(refused.body.errors, ['item', 'owner'])).toEqual(['FORBIDDEN']);
    const read = await call(query, { id: owner.ids.item }, wide);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.me.email).toBe(read.body.data.item.owner.email);
  });

  it.each(RELATED.map((related) => [related.name, related] as const))(
    'when each caller reads every field of an %s, then it answers only with every scope of the path',
    async (_name, related) => {
      for (const caller of callers) {
        const response = await call(related.query, { id: owner.ids[related.root] }, caller);
        const allowed = related.needs.every((scope) => caller.scopes.includes(scope as Scope));
        const label = `${caller.label}: ${related.name}`;
        if (allowed) {
          expect({ label, errors: response.body.errors }).toEqual({ label, errors: undefined });
        } else {
          expect({ label, codes: (response.body.errors as GraphQLError[]).map((error) => error.extensions?.code) }).toEqual({
            label,
            codes: expect.arrayContaining(['FORBIDDEN']),
          });
          // Nothing of the refused records leaked: no title, body or name made it into the answer.
          expect(JSON.stringify(response.body.data ?? null)).not.toMatch(/Scoped|A post\.|A comment\.|scoped /);
        }
      }
    },
  );
});
