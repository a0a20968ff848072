/** JsonBytes writes JSON.stringify's bytes, whatever the depth it walks to. */
import { strict as assert } from "node:assert";
import { JsonBytes } from "../../../src/sandbox/json-bytes";

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

/** Values where JSON.stringify has a rule of its own: left-out members, holes, toJSON, boxed values, escapes, non-ASCII. */
const VALUES: unknown[] = [
  {
    version: 1,
    nextId: 4294967297,
    users: { 'a"b': { login: "ü·—😀", token: "t\u2028\n", scopes: ["repo", undefined, () => 1] }, empty: {} },
    repos: {
      "o/r": {
        issues: [
          { number: 1, body: "—".repeat(20000), gone: undefined, fn: () => 1, sym: Symbol("s"), at: new Date(0), nan: NaN, inf: -Infinity },
          { number: 2, boxed: new String("s"), n: new Number(3), point: new Point(1, 2), withToJson: { toJSON: () => "mine" }, nested: [[1, [2, [3]]], []] },
          // eslint-disable-next-line no-sparse-arrays
          [1, , 3],
          Object.assign(Object.create(null) as object, { bare: true }),
          { drop: { toJSON: () => undefined }, keep: 1 },
        ],
        "": null,
        "\ud83d": "lone surrogate key",
      },
    },
  },
  [undefined, () => 1, Symbol("x")],
  [],
  {},
  "text",
  42,
  null,
  true,
];

describe("sandbox JsonBytes", () => {
  it("writes JSON.stringify's bytes at every depth, the kept buffer growing and shrinking between calls", () => {
    const json = new JsonBytes();
    for (const depth of [0, 1, 2, 3, 4, 5, 8])
      for (const value of VALUES)
        assert.equal(json.encode(value, depth).toString("utf8"), JSON.stringify(value), `depth ${depth}: ${JSON.stringify(value)?.slice(0, 80)}`);
  });

  it("gives the UTF-8 of the text, byte for byte (three bytes for a unit, four for a pair)", () => {
    const json = new JsonBytes();
    const value = { a: ["—".repeat(5000), "😀".repeat(5000), "ascii"] };
    assert.ok(json.encode(value, 3).equals(Buffer.from(JSON.stringify(value), "utf8")));
  });
});
