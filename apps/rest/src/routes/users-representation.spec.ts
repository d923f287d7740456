import type { UserFieldsFragment } from '../operations/__generated__/operations';
import { toUserListItem, toUserPublic } from './users-routes';

const node: UserFieldsFragment = {
  id: '7',
  username: 'alice',
  email: 'alice@example.com',
  fullName: null,
  isActive: true,
  role: 'member',
  version: 3,
};

describe('user representation', () => {
  it('when no version is asked for, then the full User in snake_case with an integer id', () => {
    expect(toUserListItem(node, undefined)).toEqual({
      id: 7,
      username: 'alice',
      email: 'alice@example.com',
      full_name: null,
      is_active: true,
      role: 'member',
    });
    expect(toUserListItem(node, undefined)).toEqual(toUserPublic(node));
  });

  it('when version 1 is asked for, then id and name only', () => {
    expect(toUserListItem(node, 1)).toEqual({ id: 7, name: 'alice' });
  });

  it('when version 2 is asked for, then version 1 plus email', () => {
    expect(toUserListItem(node, 2)).toEqual({ id: 7, name: 'alice', email: 'alice@example.com' });
  });
});
