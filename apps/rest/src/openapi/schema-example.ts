/** A plausible example value for a JSON Schema (2020-12), for operations whose schema declares none. */
type JsonSchema = Record<string, unknown>;

export function exampleFromSchema(
  schema: unknown,
  components: Record<string, JsonSchema>,
  depth = 0,
): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return null;
  const s = schema as JsonSchema;
  if (typeof s['$ref'] === 'string') {
    const id = s['$ref'].replace('#/components/schemas/', '');
    return exampleFromSchema(components[id], components, depth + 1);
  }
  if ('example' in s) return s['example'];
  if (Array.isArray(s['examples']) && s['examples'].length > 0) return s['examples'][0];
  if ('const' in s) return s['const'];
  if ('default' in s && s['default'] !== undefined) return s['default'];
  if (Array.isArray(s['enum']) && s['enum'].length > 0) return s['enum'][0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = s[key];
    if (Array.isArray(options)) {
      const first = options.find((o) => (o as JsonSchema)?.['type'] !== 'null') ?? options[0];
      return exampleFromSchema(first, components, depth + 1);
    }
  }
  const type = Array.isArray(s['type']) ? (s['type'] as string[]).find((t) => t !== 'null') : s['type'];
  switch (type) {
    case 'object': {
      const properties = (s['properties'] ?? {}) as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(properties).map(([name, inner]) => [
          name,
          exampleFromSchema(inner, components, depth + 1),
        ]),
      );
    }
    case 'array':
      return s['items'] === undefined ? [] : [exampleFromSchema(s['items'], components, depth + 1)];
    case 'integer':
    case 'number': {
      const minimum =
        typeof s['minimum'] === 'number'
          ? s['minimum']
          : typeof s['exclusiveMinimum'] === 'number'
            ? s['exclusiveMinimum'] + 1
            : 1;
      return type === 'integer' ? Math.max(1, Math.ceil(minimum)) : Math.max(minimum, 9.99);
    }
    case 'boolean':
      return true;
    case 'string': {
      if (s['format'] === 'email') return 'user@example.com';
      if (s['format'] === 'date-time') return '2026-01-01T00:00:00.000Z';
      if (s['format'] === 'uri') return 'https://example.com/';
      const minLength = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
      return 'example1'.padEnd(minLength, 'x');
    }
    case 'null':
      return null;
    default:
      return null;
  }
}
