/**
 * The gateway's trusted-documents manifest (dist/, made by tools/build.mjs before the tests) against the facade's
 * operation table: with TRUSTED_DOCUMENTS=on the gateway runs only listed documents, so one the facade sends but the
 * manifest lacks would fail in production only.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Kind, parse } from 'graphql';
import { ALL_OPERATIONS, OPERATIONS } from '../src/gateway/gateway-client';

const root = resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(
  readFileSync(join(root, 'dist', 'apps', 'gateway', 'trusted-documents.json'), 'utf8'),
) as { operations: Array<{ id: string; name: string; body: string }> };

/**
 * The operation names declared in apps/rest/src/operations/*.graphql and in the documents the resource declarations
 * derive (operations/__generated__/*.graphql), read from the documents, not the code.
 */
const declaredOperationNames = (): string[] => {
  const dirs = [resolve(__dirname, '..', 'src', 'operations'), resolve(__dirname, '..', 'src', 'operations', '__generated__')];
  return dirs
    .flatMap((dir) => readdirSync(dir).filter((file) => file.endsWith('.graphql')).map((file) => join(dir, file)))
    .flatMap((file) => parse(readFileSync(file, 'utf8')).definitions)
    .flatMap((definition) =>
      definition.kind === Kind.OPERATION_DEFINITION && definition.name ? [definition.name.value] : [],
    )
    .sort();
};

describe('trusted documents of the facade', () => {
  it('when the operation table is built, then it holds one operation per document declared in the .graphql files', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(declaredOperationNames());
    expect(ALL_OPERATIONS.map((op) => op.name).sort()).toEqual(declaredOperationNames());
  });

  it('when the manifest is built, then it lists every document the facade sends, byte for byte under its hash', () => {
    const listed = new Map(manifest.operations.map((op) => [op.id, op]));
    const missing = ALL_OPERATIONS.filter((op) => {
      const id = createHash('sha256').update(op.document).digest('hex');
      return listed.get(id)?.name !== op.name;
    }).map((op) => op.name);
    expect(missing).toEqual([]);
  });
});
