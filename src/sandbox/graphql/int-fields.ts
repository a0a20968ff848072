/**
 * Field errors of `Int` fields without the cost of a stack trace. The sandbox numbers every object
 * past 2^32 (ADR 0130), so each `databaseId` a query selects is refused by graphql-js's `Int`: null
 * and a field error. graphql-js builds that error twice, the second copying the first one's
 * `stack`, which formats the trace through the source maps the sandbox runs with: 80% of the time
 * of a 100-issue board that selects its comments' `databaseId` (ADR 0390). Here the refusal is
 * made before graphql-js completes the value, already located (same message, path and
 * locations), and without a trace, so graphql-js passes it through as it is.
 */
import { GraphQLError, GraphQLInt, defaultFieldResolver, getLocation, getNullableType, isObjectType, responsePathAsArray } from "graphql";
import type { FieldNode, GraphQLFieldResolver, GraphQLResolveInfo, GraphQLSchema, SourceLocation } from "graphql";

const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);

/** graphql-js's own words for an integer out of range (its `Int.serialize`; a unit test holds them equal). */
export function outOfRangeMessage(value: number): string {
  return `Int cannot represent non 32-bit signed integer value: ${value}`;
}

/** The message graphql-js would refuse `value` with, or null when `Int` takes it. */
function refusal(value: unknown): string | null {
  if (typeof value === "number" && Number.isInteger(value)) return value <= INT_MAX && value >= INT_MIN ? null : outOfRangeMessage(value);
  try {
    GraphQLInt.serialize(value);
    return null;
  } catch (e) {
    if (e instanceof GraphQLError) return e.message;
    throw e;
  }
}

/**
 * A field error as graphql-js's executor needs it: it passes on, untouched, any error that already
 * has a `path` array (`locatedError`), and the handler's `shape()` reads its message, path,
 * locations and extensions. Not a `GraphQLError`: its constructor redefines six properties of the
 * instance, which costs as much again as everything else in a field error.
 */
class IntFieldError extends Error {
  readonly extensions: Record<string, unknown> = {};
  constructor(
    message: string,
    readonly path: (string | number)[],
    readonly locations: readonly SourceLocation[] | undefined,
  ) {
    super(message);
  }
}

/** A field's place in the document is the same every time: worked out once per field node. */
const fieldLocations = new WeakMap<FieldNode, readonly SourceLocation[]>();

function locationsOf(nodes: readonly FieldNode[]): readonly SourceLocation[] | undefined {
  const node = nodes[0];
  if (!node?.loc) return undefined;
  let known = fieldLocations.get(node);
  if (!known) {
    known = nodes.flatMap((n) => (n.loc ? [getLocation(n.loc.source, n.loc.start)] : []));
    fieldLocations.set(node, known);
  }
  return known;
}

function checked(value: unknown, info: GraphQLResolveInfo): unknown {
  if (value === null || value === undefined) return value;
  const message = refusal(value);
  if (message === null) return value;
  // No trace: nothing reads it, and capturing one is most of what an Error costs. The limit is
  // put back before anything else can run.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    throw new IntFieldError(message, responsePathAsArray(info.path), locationsOf(info.fieldNodes));
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function checkedResolver(resolve: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, context, info) => {
    const value = resolve(source, args, context, info);
    if (value instanceof Promise) return value.then((v: unknown) => checked(v, info));
    return checked(value, info);
  };
}

/** Gives every field of type `Int` or `Int!` a resolver that refuses what `Int` refuses, cheaply. */
export function withCheapIntErrors(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (getNullableType(field.type) !== GraphQLInt) continue;
      field.resolve = checkedResolver(field.resolve ?? defaultFieldResolver);
    }
  }
  return schema;
}
