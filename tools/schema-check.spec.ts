/**
 * The API schema check (tools/schema-check.cjs) on copies of the real subgraph schemas: the committed
 * schema/api.graphql is what composition gives; renaming a field is breaking and refused; adding one is safe and
 * recorded; removing a field that was deprecated first passes as dangerous.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  API_SCHEMA_PATH,
  checkApiSchema,
  classify,
  compose,
  subgraphSdls,
  undocumented,
  updateApiSchema,
} from './schema-check.cjs';

const withUsers = (edit: (sdl: string) => string) => {
  const sdls = subgraphSdls();
  const users = sdls['users']!;
  const edited = edit(users);
  expect(edited).not.toBe(users);
  return compose({ ...sdls, users: edited }).apiSdl;
};

describe('API schema check', () => {
  let dir: string;
  let committed: string;
  let changelog: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'schema-check-'));
    committed = join(dir, 'api.graphql');
    changelog = join(dir, 'CHANGELOG.md');
    copyFileSync(API_SCHEMA_PATH, committed);
    writeFileSync(changelog, '# API schema changelog\n\n## 2026-01-01\n\n- baseline\n');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when the subgraphs compose, then their API schema is the committed schema/api.graphql (the build checks this)', async () => {
    await expect(checkApiSchema(compose().apiSdl)).resolves.toEqual([]);
  });

  it('when a type or field of the API schema has no description, then the check fails naming it; today none lacks one', async () => {
    expect(undocumented(compose().apiSdl)).toEqual([]);
    const bare = withUsers((sdl) => sdl.replace('  fullName: String\n', '  fullName: String\n  nickname: String\n'));
    expect(undocumented(bare)).toEqual(['User.nickname']);
    await expect(checkApiSchema(bare, committed)).rejects.toThrow(/have none:\n {2}User.nickname/);
  });

  it('when a field is renamed in a copy of a subgraph schema, then the change is breaking and refused', async () => {
    const renamed = withUsers((sdl) => sdl.replace('  fullName: String\n', '  displayName: String\n'));
    const changes = await classify(readFileSync(committed, 'utf8'), renamed);
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'breaking', message: "Field 'fullName' was removed from object type 'User'" }),
        expect.objectContaining({ level: 'safe', message: "Field 'displayName' was added to object type 'User'" }),
      ]),
    );
    await expect(checkApiSchema(renamed, committed)).rejects.toThrow(/breaking: Field 'fullName' was removed[\s\S]*deprecate first/);
    await expect(updateApiSchema({ apiSdl: renamed, path: committed, changelog })).rejects.toThrow(/Breaking changes are refused/);
    expect(readFileSync(committed, 'utf8')).toBe(readFileSync(API_SCHEMA_PATH, 'utf8'));
  });

  it('when a field is added, then the change is safe: the build asks for an update, which records it in the changelog', async () => {
    const added = withUsers((sdl) => sdl.replace('  fullName: String\n', '  fullName: String\n  "A nickname."\n  nickname: String\n'));
    const changes = await classify(readFileSync(committed, 'utf8'), added);
    expect(changes.map((c) => c.level)).toEqual(changes.map(() => 'safe'));
    expect(changes).toContainEqual(expect.objectContaining({ message: "Field 'nickname' was added to object type 'User'" }));
    await expect(checkApiSchema(added, committed)).rejects.toThrow(/npm run schema:update/);
    await updateApiSchema({ apiSdl: added, path: committed, changelog, note: 'nickname' });
    await expect(checkApiSchema(added, committed)).resolves.toEqual([]);
    expect(readFileSync(changelog, 'utf8')).toMatch(/## \d{4}-\d{2}-\d{2}: nickname\n\n- safe: Field 'nickname' was added to object type 'User'\n[^#]*## 2026-01-01/);
  });

  it('when a field is deprecated first and removed later, then the removal passes as dangerous', async () => {
    const deprecated = withUsers((sdl) => sdl.replace('  fullName: String\n', '  fullName: String @deprecated(reason: "gone soon")\n'));
    await updateApiSchema({ apiSdl: deprecated, path: committed, changelog });
    const removed = withUsers((sdl) => sdl.replace('  "Display name; null when not given."\n  fullName: String\n', ''));
    const changes = await classify(readFileSync(committed, 'utf8').replace(/^#.*\n\n/, ''), removed);
    expect(changes.map((c) => c.level)).not.toContain('breaking');
    expect(changes).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'dangerous' })]));
    await expect(updateApiSchema({ apiSdl: removed, path: committed, changelog })).resolves.toBeDefined();
  });
});
