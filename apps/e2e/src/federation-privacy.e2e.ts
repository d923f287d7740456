/** Entity references do not widen access: e-mail addresses reached through Item.owner still need users:read. */
import { http } from '@platform/testing';
import { gatewayGraphql, member, rest } from './test/resources-support';

const ITEM_WITH_OWNER = 'query ($id: ID!) { item(id: $id) { name owner { username email } } }';
const ITEM_WITH_OWNER_NAME = 'query ($id: ID!) { item(id: $id) { name owner { username } } }';

describe('federation privacy', () => {
  it('when a caller holds only items:read, then owner usernames resolve but e-mail addresses are refused', async () => {
    const owner = await member('priv');
    const created = await http.post(rest('/items/'), {
      token: owner.token,
      json: { name: 'lamp', price: 12.5 },
    });
    expect(created.status).toBe(201);
    const reader = await member('privr', 'items:read');

    const names = await http.graphql(
      gatewayGraphql,
      ITEM_WITH_OWNER_NAME,
      { id: String(created.body.id) },
      { token: reader.token },
    );
    expect(names.body).toEqual({ data: { item: { name: 'lamp', owner: { username: owner.username } } } });

    const emails = await http.graphql(
      gatewayGraphql,
      ITEM_WITH_OWNER,
      { id: String(created.body.id) },
      { token: reader.token },
    );
    expect(JSON.stringify(emails.body.data ?? {})).not.toContain('@example.com');
    expect(emails.body.errors).toEqual([
      expect.objectContaining({
        message: 'Not enough permissions. Required: users:read',
        extensions: expect.objectContaining({ code: 'FORBIDDEN' }),
      }),
    ]);
  });

  it('when a caller holds users:read, then the owner e-mail is visible', async () => {
    const owner = await member('privo');
    const created = await http.post(rest('/items/'), {
      token: owner.token,
      json: { name: 'desk', price: 99 },
    });
    const viewer = await member('privv');
    const read = await http.graphql(
      gatewayGraphql,
      ITEM_WITH_OWNER,
      { id: String(created.body.id) },
      { token: viewer.token },
    );
    expect(read.body.data.item.owner).toEqual({
      username: owner.username,
      email: `${owner.username}@example.com`,
    });
  });
});
