/**
 * The database round trips of each write, as the subgraphs count them (their development-only
 * `extensions.mongoCommands`, driver command monitoring, of subgraphs of their own in development mode): the fewest
 * the exactness rules allow (ADR 0020). A create is its insert (ids come from a block claimed at once) and the check
 * that its account was not deleted meanwhile (ADR 0019); an update or delete of a versioned record is one read (the
 * caller's authorisation and the version), the claim's insert and the bounded write, with no second read and no claim
 * deleted on the write's path. Each write records its event before the write (ADR 0023): a create inserts its outbox
 * entry, an update or delete carries the event in its claim's insert (one insert, not two); the relay drops both after
 * the answer. ADR 0020 lists them against the code before.
 */
import { DEVELOPMENT_MODE, http, stackSubgraphSecret, suiteApps } from '@platform/testing';
import { member, stack, unique, type Member } from './test/resources-support';

type Commands = Record<string, number> | undefined;

/** The items and users subgraphs in development mode (the stack's run as production does and report no commands). */
const counting = new Map<string, string>();
const developmentApps = suiteApps('round-trips-');

async function subgraph(name: 'items' | 'users', token: string, query: string, variables: Record<string, unknown>) {
  const response = await http.graphql(`${counting.get(name)}/graphql`, query, variables, {
    token,
    headers: { 'x-subgraph-secret': stackSubgraphSecret(stack) },
  });
  expect(response.body.errors).toBeUndefined();
  return { data: response.body.data, commands: response.body.extensions?.mongoCommands as Commands };
}

const CREATE = 'mutation($input: CreateItemInput!) { createItem(input: $input) { id version } }';
const UPDATE = 'mutation($id: ID!, $v: Int) { updateItem(id: $id, input: { price: 3 }, expectedVersion: $v) { id version } }';
const DELETE = 'mutation($id: ID!, $v: Int) { deleteItem(id: $id, expectedVersion: $v) }';
const UPDATE_USER = 'mutation($id: ID!) { updateUser(id: $id, input: { fullName: "Round Trip" }) { id version } }';

describe('round trips of a write', () => {
  let alice: Member;

  beforeAll(async () => {
    for (const name of ['items', 'users'] as const)
      counting.set(name, (await developmentApps.start(name, { ...DEVELOPMENT_MODE })).url);
    alice = await member('trips');
  }, 90_000);

  it('when an item is created, then its insert, its outbox entry and the deletion-mark check are the only commands (the id comes from a block in hand)', async () => {
    // The first create of this process may claim a block; the next ones use it.
    await subgraph('items', alice.token, CREATE, { input: { name: `trip-${unique()}`, price: 1 } });
    const { commands } = await subgraph('items', alice.token, CREATE, { input: { name: `trip-${unique()}`, price: 1 } });
    // The record and its event's outbox entry, then the one read that keeps an item from outliving its owner's deletion
    // (ADR 0019: the deletion mark of the acting account, a string `_id`, which FerretDB looks up by its index).
    expect(commands).toEqual({ insert: 2, find: 1 });
  });

  it('when an item is updated (with or without If-Match) and deleted, then one read, the claim carrying the event and the write each', async () => {
    const created = await subgraph('items', alice.token, CREATE, { input: { name: `trip-${unique()}`, price: 1 } });
    const id = created.data.createItem.id as string;
    const unconditional = await subgraph('items', alice.token, UPDATE, { id });
    expect(unconditional.commands).toEqual({ find: 1, insert: 1, findAndModify: 1 });
    const conditional = await subgraph('items', alice.token, UPDATE, { id, v: 1 });
    expect(conditional.commands).toEqual({ find: 1, insert: 1, findAndModify: 1 });
    const deleted = await subgraph('items', alice.token, DELETE, { id, v: 2 });
    expect(deleted.commands).toEqual({ find: 1, insert: 1, findAndModify: 1 });
  });

  it('when a profile is updated, then one read, the claim carrying the event and the write', async () => {
    const { commands } = await subgraph('users', alice.token, UPDATE_USER, { id: String(alice.id) });
    expect(commands).toEqual({ find: 1, insert: 1, findAndModify: 1 });
  });
});
