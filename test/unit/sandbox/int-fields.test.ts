/**
 * The sandbox's cheap `Int` field errors (src/sandbox/graphql/int-fields.ts) answer exactly what
 * graphql-js's own `Int` answers: the same data, and errors with the same message, path and
 * locations, in the same order, for values past 2^31, non-integers, strings and booleans, in
 * nullable and non-null fields, in lists of objects and behind promises.
 */
import assert from "node:assert/strict";
import { buildSchema, execute, parse } from "graphql";
import type { ExecutionResult, GraphQLSchema } from "graphql";
import { withCheapIntErrors } from "../../../src/sandbox/graphql/int-fields";

const sdl = `
type Item { id: Int small: Int big: Int! name: String }
type Query { big: Int small: Int negative: Int fraction: Int text: Int digits: Int flag: Int missing: Int later: Int items: [Item] strict: Item }
`;

const root = {
  big: 2 ** 32 + 1000,
  small: 7,
  negative: -(2 ** 31) - 1,
  fraction: 1.5,
  text: "abc",
  digits: "42",
  flag: true,
  missing: null,
  later: () => Promise.resolve(2 ** 40),
  items: [
    { id: 2 ** 32 + 1, small: 1, big: 3, name: "a" },
    { id: 2, small: 2 ** 31, big: 4, name: "b" },
  ],
  strict: { id: 1, small: 1, big: 2 ** 33, name: "c" },
};

const document = parse(`query {
  big small negative fraction text digits flag missing later
  items { id small name }
  strict { id big name }
  alias: big
}`);

function answer(schema: GraphQLSchema): Promise<unknown> {
  return Promise.resolve(execute({ schema, document, rootValue: root })).then((r: ExecutionResult) => ({
    data: r.data,
    errors: r.errors?.map((e) => ({ message: e.message, path: e.path, locations: e.locations })),
  }));
}

describe("sandbox GraphQL Int fields", () => {
  it("refuse what graphql-js's Int refuses, with the same answer", async () => {
    const theirs = await answer(buildSchema(sdl));
    const ours = await answer(withCheapIntErrors(buildSchema(sdl)));
    assert.deepEqual(JSON.parse(JSON.stringify(ours)), JSON.parse(JSON.stringify(theirs)));
    // The case that matters: an id past 2^31 is null plus a field error naming the value.
    const errors = (theirs as { errors: { message: string; path: unknown[] }[] }).errors;
    assert.ok(errors.some((e) => e.message === `Int cannot represent non 32-bit signed integer value: ${2 ** 32 + 1000}` && e.path[0] === "big"));
    assert.ok(errors.length >= 8, `expected every bad value refused, got ${errors.length}`);
  });
});
