import { foldEmail, foldUsername, normalizeEmail } from './identity';

describe('identity comparison', () => {
  it('when usernames differ only by case, then they fold to the same key', () => {
    expect(new Set(['admin', 'Admin', 'ADMIN', 'aDmIn'].map(foldUsername))).toEqual(new Set(['admin']));
    expect(foldUsername('admin.1')).not.toBe(foldUsername('admin_1'));
  });

  it('when an e-mail is stored, then its local part is kept as given and its domain lower-cased', () => {
    expect(normalizeEmail('Ann.Lee@Example.COM')).toBe('Ann.Lee@example.com');
    expect(normalizeEmail('ann@example.com')).toBe('ann@example.com');
  });

  it('when e-mails differ only by case (local part or domain), then they fold to the same key', () => {
    const keys = ['ann@example.com', 'ANN@example.com', 'Ann@EXAMPLE.com'].map(foldEmail);
    expect(new Set(keys)).toEqual(new Set(['ann@example.com']));
    expect(foldEmail(normalizeEmail('Ann@Example.com'))).toBe(foldEmail('ann@example.com'));
  });
});
