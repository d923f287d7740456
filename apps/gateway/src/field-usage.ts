/**
 * Field usage at the gateway: how often each operation name and each schema field (`Type.field`) was asked for, and
 * which of those fields are deprecated, so a team can tell whether a field can go. Counts live in this process (a
 * getter, `snapshot()`, for the metrics exporter to read); label sets are bounded: fields by the schema itself (only
 * validated documents are counted), operation names by `maxOperationNames` (later names count as `(other)`).
 */
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import {
  getNamedType,
  isObjectType,
  isInterfaceType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';

export interface FieldUsageSnapshot {
  /** Operations by their name (`(anonymous)` without one, `(other)` past the bound). */
  operations: Record<string, number>;
  /** Operations that selected each field, by `Type.field`. */
  fields: Record<string, number>;
  /** The subset of `fields` that the schema marks @deprecated. */
  deprecatedFields: Record<string, number>;
}

export const OTHER_OPERATIONS = '(other)';
export const ANONYMOUS_OPERATION = '(anonymous)';

export class FieldUsage {
  private readonly operations = new Map<string, number>();
  private readonly fields = new Map<string, number>();
  private readonly deprecated = new Set<string>();
  /** The fields of a document, worked out once per parsed document (Apollo reuses it for the same text). */
  private readonly fieldsOf = new WeakMap<DocumentNode, string[]>();

  constructor(private readonly maxOperationNames = 500) {}

  record(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): void {
    const name = operationName ?? ANONYMOUS_OPERATION;
    const key = this.operations.has(name) || this.operations.size < this.maxOperationNames ? name : OTHER_OPERATIONS;
    this.operations.set(key, (this.operations.get(key) ?? 0) + 1);
    for (const field of this.fieldsIn(schema, document)) this.fields.set(field, (this.fields.get(field) ?? 0) + 1);
  }

  snapshot(): FieldUsageSnapshot {
    const fields = Object.fromEntries(this.fields);
    return {
      operations: Object.fromEntries(this.operations),
      fields,
      deprecatedFields: Object.fromEntries(Object.entries(fields).filter(([field]) => this.deprecated.has(field))),
    };
  }

  private fieldsIn(schema: GraphQLSchema, document: DocumentNode): string[] {
    const cached = this.fieldsOf.get(document);
    if (cached) return cached;
    const typeInfo = new TypeInfo(schema);
    const found = new Set<string>();
    visit(
      document,
      visitWithTypeInfo(typeInfo, {
        Field: () => {
          const parent = typeInfo.getParentType();
          const definition = typeInfo.getFieldDef();
          if (!parent || !definition || definition.name.startsWith('__')) return;
          const named = getNamedType(parent);
          if (!isObjectType(named) && !isInterfaceType(named)) return;
          const field = `${named.name}.${definition.name}`;
          found.add(field);
          if (definition.deprecationReason != null) this.deprecated.add(field);
        },
      }),
    );
    const fields = [...found];
    this.fieldsOf.set(document, fields);
    return fields;
  }
}

/**
 * Counts every operation that passed validation (refused documents name no real fields), except those `ignore` names
 * (the facade's dry runs at start, which no client asked for).
 */
export function fieldUsagePlugin<TContext extends BaseContext>(
  usage: FieldUsage,
  ignore: (context: TContext) => boolean = () => false,
): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operationName, contextValue }) {
          if (!ignore(contextValue)) usage.record(schema, document, operationName);
        },
      };
    },
  };
}
