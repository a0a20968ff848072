/**
 * Relay connections the way GitHub does them: `first` or `last` is required (GitHub refuses an
 * unbounded connection), at most 100, cursors are opaque.
 */
import { GraphQLError } from "graphql";
import { cursorFor, indexFromCursor } from "../ids";

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

export interface Connection<T> {
  nodes: T[];
  edges: { cursor: string; node: T }[];
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

export function connection<S, T>(name: string, items: S[], args: ConnectionArgs, toNode: (item: S) => T): Connection<T> {
  const { first, last } = args;
  if ((first === undefined || first === null) && (last === undefined || last === null)) {
    throw new GraphQLError(`You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`, {
      extensions: { type: "MISSING_PAGINATION_BOUNDARIES" },
    });
  }
  for (const [key, value] of [
    ["first", first],
    ["last", last],
  ] as const) {
    if (value !== undefined && value !== null && (value < 0 || value > 100)) {
      throw new GraphQLError(`Requesting ${value} records on the \`${name}\` connection exceeds the \`${key}\` limit of 100 records.`, {
        extensions: { type: "EXCESSIVE_PAGINATION" },
      });
    }
  }
  let start = 0;
  let end = items.length;
  if (args.after) {
    const i = indexFromCursor(args.after);
    if (i === null) throw new GraphQLError(`\`${args.after}\` does not appear to be a valid cursor.`, { extensions: { type: "INVALID_CURSOR_ARGUMENTS" } });
    start = Math.max(start, i + 1);
  }
  if (args.before) {
    const i = indexFromCursor(args.before);
    if (i === null) throw new GraphQLError(`\`${args.before}\` does not appear to be a valid cursor.`, { extensions: { type: "INVALID_CURSOR_ARGUMENTS" } });
    end = Math.min(end, i);
  }
  if (first !== undefined && first !== null) end = Math.min(end, start + first);
  if (last !== undefined && last !== null) start = Math.max(start, end - last);
  const edges: { cursor: string; node: T }[] = [];
  for (let i = start; i < end; i++) edges.push({ cursor: cursorFor(i), node: toNode(items[i] as S) });
  return {
    nodes: edges.map((e) => e.node),
    edges,
    totalCount: items.length,
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}
