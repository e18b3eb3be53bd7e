/**
 * Runs one GraphQL request against Linear's published schema for the pinned
 * SDK (schema.graphql beside this file): parse, validate (a query Linear
 * would refuse is refused here too, with the same GraphQL errors), then
 * execute with the double's root resolvers. A field the resolvers do not
 * model gets an empty value of its declared type (null when nullable; "",
 * 0, false, [], the first enum value, an empty object otherwise), so the
 * answer always has the shape the schema promises.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  buildSchema,
  type DocumentNode,
  type ExecutionResult,
  execute,
  type GraphQLError,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLTypeResolver,
  isEnumType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  parse,
  validate,
} from "graphql";

let cached: GraphQLSchema | null = null;

/** Linear's schema for the pinned SDK, built once per process. */
export function linearSchema(): GraphQLSchema {
  cached ??= buildSchema(readFileSync(resolve(import.meta.dirname, "schema.graphql"), "utf8"));
  return cached;
}

const SCALAR_EMPTY: Readonly<Record<string, unknown>> = {
  String: "",
  ID: "",
  Boolean: false,
  Int: 0,
  Float: 0,
  DateTime: "2026-01-01T00:00:00.000Z",
  TimelessDate: "2026-01-01",
  JSON: {},
  JSONObject: {},
};

/** The empty value of a non-null field the resolvers do not model. */
function emptyOf(type: GraphQLOutputType): unknown {
  if (!isNonNullType(type)) return null;
  const inner = type.ofType;
  if (isListType(inner)) return [];
  if (isScalarType(inner)) return SCALAR_EMPTY[inner.name] ?? "";
  if (isEnumType(inner)) return inner.getValues()[0]?.value ?? null;
  return {};
}

const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
  const value = (source as Record<string, unknown> | null)?.[info.fieldName];
  if (typeof value === "function") return value.call(source, args, context, info);
  return value === undefined ? emptyOf(info.returnType) : value;
};

const typeResolver: GraphQLTypeResolver<unknown, unknown> = (value, _context, info, abstractType) => {
  const named = (value as { __typename?: string } | null)?.__typename;
  return named ?? info.schema.getPossibleTypes(abstractType)[0]?.name;
};

/** A request as it came: its document when it parsed and validated, the errors otherwise. */
export type Checked =
  | { readonly ok: true; readonly document: DocumentNode; readonly operation: OperationDefinitionNode; readonly rootFields: string[] }
  | { readonly ok: false; readonly errors: readonly GraphQLError[] };

/** Parses and validates `query` against the schema; names the operation's root fields. */
export function checkRequest(query: string, operationName: string | undefined): Checked {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    return { ok: false, errors: [error as GraphQLError] };
  }
  const errors = validate(linearSchema(), document);
  if (errors.length > 0) return { ok: false, errors };
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations.find((o) => operationName === undefined || o.name?.value === operationName) ?? operations[0];
  if (operation === undefined) return { ok: false, errors: [] };
  const rootFields = operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
  return { ok: true, document, operation, rootFields };
}

/** Executes a checked request with these root resolvers. */
export async function run(
  document: DocumentNode,
  rootValue: unknown,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): Promise<ExecutionResult> {
  return await execute({
    schema: linearSchema(),
    document,
    rootValue,
    variableValues: variables ?? {},
    operationName: operationName ?? null,
    fieldResolver,
    typeResolver,
  });
}
