/** REST expand and fields from the declarations: relations, parsing, the GraphQL selection, error paths. */
import { AppError } from '@platform/errors';
import {
  EXPAND_MAX_DEPTH,
  RESOURCES,
  expandablePaths,
  graphqlSelection,
  parseSelection,
  relationsOf,
  restPathOf,
  selectedRepresentation,
  selectionKey,
} from './index';

const { items, posts, comments, users, apiKeys } = RESOURCES;

const refusal = (run: () => unknown): { status: string; message: string } => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { status: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
};

describe('expandable relations', () => {
  it('when the declarations are read, then each resource expands its references, the inverse lists and its children', () => {
    const names = (resource: (typeof RESOURCES)[keyof typeof RESOURCES]) => [...relationsOf(resource).keys()].sort();
    expect(names(items)).toEqual(['owner']);
    expect(names(posts)).toEqual(['author', 'comments']);
    expect(names(comments)).toEqual(['author', 'post']);
    expect(names(users)).toEqual(['items', 'posts']);
    expect(names(apiKeys)).toEqual([]);
    expect(relationsOf(users).get('items')).toMatchObject({ many: true, target: items });
  });

  it(`when the paths are enumerated, then they reach ${EXPAND_MAX_DEPTH} levels and no further`, () => {
    const paths = expandablePaths(items, relationsOf);
    expect(paths).toContain('owner.posts.comments.author');
    expect(Math.max(...paths.map((path) => path.split('.').length))).toBe(EXPAND_MAX_DEPTH);
  });
});

describe('parseSelection', () => {
  it('when neither parameter is given, then there is no selection', () => {
    expect(parseSelection(items, {}, relationsOf)).toBeNull();
  });

  it('when expand is repeated and comma-separated, and fields imply expansions, then one tree holds them all and the id is kept', () => {
    const selection = parseSelection(posts, { expand: ['author,comments', 'comments.author'], fields: 'title,comments.body' }, relationsOf)!;
    expect([...selection.fields!].sort()).toEqual(['id', 'title']);
    const comment = selection.expand.get('comments')!.selection;
    expect([...comment.fields!].sort()).toEqual(['body', 'id']);
    expect(comment.expand.get('author')!.selection.fields).toBeUndefined();
    expect(selectionKey(selection)).toBe(
      selectionKey(parseSelection(posts, { fields: ['comments.body', 'title'], expand: 'comments.author,author' }, relationsOf)!),
    );
  });

  it.each([
    [{ expand: 'buyer' }, 'expand', '`buyer`'],
    [{ expand: 'owner.friends' }, 'expand', '`owner.friends`'],
    [{ fields: 'colour' }, 'fields', '`colour`'],
    [{ fields: 'owner.password' }, 'fields', '`owner.password`'],
    [{ expand: 'owner.items.owner.items.owner' }, 'expand', '5 levels deep'],
    [{ expand: 'Owner' }, 'expand', '`Owner`'],
    [{ expand: 'owner,' }, 'expand', '``'],
    [{ fields: { toString: 'x' } }, 'fields', 'not a name'],
  ])('when %j is asked, then 400 names %s and %s', (query, parameter, named) => {
    const { status, message } = refusal(() => parseSelection(items, query, relationsOf));
    expect(status).toBe('BAD_REQUEST');
    expect(message.startsWith(`${parameter}: `)).toBe(true);
    expect(message).toContain(named);
  });

  it('when a view is listed, then fields name the view and the relations its resource has', () => {
    const view = users.views!['v1']!.fields;
    const selection = parseSelection(users, { fields: 'name,items.name' }, relationsOf, view)!;
    expect([...selection.fields!].sort()).toEqual(['id', 'name']);
    expect(refusal(() => parseSelection(users, { fields: 'username' }, relationsOf, view)).message).toContain('`username`');
  });
});

describe('graphqlSelection and the answer', () => {
  it('when a selection is written, then only declared GraphQL names appear, lists with their size, and an id-only expansion asks one public field', () => {
    const selection = parseSelection(items, { fields: 'name,owner.id' }, relationsOf)!;
    expect(graphqlSelection(selection, ['version'])).toBe('id name version owner { id username }');
    const user = parseSelection(users, { expand: 'items', fields: 'full_name' }, relationsOf)!;
    const written = graphqlSelection(user);
    expect(written).toMatch(/^id fullName items\(first: 20\) \{ id name description price [a-zA-Z ]+ \}$/);
    // An expanded record asks what its representation shows, never its version (personal for a user).
    expect(written).not.toContain('version');
  });

  it('when an answer is represented, then it shows the chosen fields under REST names and each expansion under its name', () => {
    const selection = parseSelection(items, { fields: 'name,owner.full_name' }, relationsOf)!;
    const represent = selectedRepresentation(selection);
    expect(represent({ id: '7', name: 'Lamp', price: 1, ownerId: '3', owner: { id: '3', fullName: 'Al', username: 'al' } })).toEqual({
      id: 7,
      name: 'Lamp',
      owner: { id: 3, full_name: 'Al' },
    });
    expect(represent({ id: '8', name: 'Lost', owner: null })).toEqual({ id: 8, name: 'Lost', owner: null });
  });

  it('when an error has a GraphQL path into the selection, then its REST path names it', () => {
    const selection = parseSelection(posts, { expand: 'comments.author' }, relationsOf)!;
    expect(restPathOf(selection, ['posts', 'nodes', 3, 'comments', 0, 'author', 'fullName'])).toBe('comments.author.full_name');
    expect(restPathOf(selection, ['post'])).toBeUndefined();
  });
});
