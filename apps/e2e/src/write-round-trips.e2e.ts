/**
 * The database round trips of each write, as the subgraphs count them (their development-only
 * `extensions.mongoCommands`, driver command monitoring): the fewest the exactness rules allow (ADR 0020). A create
 * is its insert (ids come from a block claimed at once); an update or delete of a versioned record is one read (the
 * caller's authorisation and the version), the claim's insert and the bounded write, with no second read and no claim
 * deleted afterwards. Each write also inserts its event's outbox entry before the write (ADR 0023; the entry is dropped
 * after the answer, by the relay). ADR 0020 lists them against the code before.
 */
import { http, stackSubgraphSecret } from '@platform/testing';
import { member, stack, unique, type Member } from './test/resources-support';

type Commands = Record<string, number> | undefined;

async function subgraph(name: 'items' | 'users', token: string, query: string, variables: Record<string, unknown>) {
  const response = await http.graphql(`${stack.urls[name]}/graphql`, query, variables, {
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
    alice = await member('trips');
  });

  it('when an item is created, then its insert and its outbox entry are the only commands (the id comes from a block in hand)', async () => {
    // The first create of this process may claim a block; the next ones use it.
    await subgraph('items', alice.token, CREATE, { input: { name: `trip-${unique()}`, price: 1 } });
    const { commands } = await subgraph('items', alice.token, CREATE, { input: { name: `trip-${unique()}`, price: 1 } });
    // The record and its event's outbox entry.
    expect(commands).toEqual({ insert: 2 });
  });

  it('when an item is updated (with or without If-Match) and deleted, then one read, the claim, the outbox entry and the write each', async () => {
    const created = await subgraph('items', alice.token, CREATE, { input: { name: `trip-${unique()}`, price: 1 } });
    const id = created.data.createItem.id as string;
    const unconditional = await subgraph('items', alice.token, UPDATE, { id });
    expect(unconditional.commands).toEqual({ find: 1, insert: 2, findAndModify: 1 });
    const conditional = await subgraph('items', alice.token, UPDATE, { id, v: 1 });
    expect(conditional.commands).toEqual({ find: 1, insert: 2, findAndModify: 1 });
    const deleted = await subgraph('items', alice.token, DELETE, { id, v: 2 });
    expect(deleted.commands).toEqual({ find: 1, insert: 2, findAndModify: 1 });
  });

  it('when a profile is updated, then one read, the claim, the outbox entry and the write', async () => {
    const { commands } = await subgraph('users', alice.token, UPDATE_USER, { id: String(alice.id) });
    expect(commands).toEqual({ find: 1, insert: 2, findAndModify: 1 });
  });
});
