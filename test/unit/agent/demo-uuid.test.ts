import { strict as assert } from "node:assert";
import { randomUuid } from "../../../src/sandbox/demo-agent/uuid";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("the demo agent's UUIDs", () => {
  it("are version 4, variant 10xx, as crypto.randomUUID's", () => {
    for (let i = 0; i < 50; i++) assert.match(randomUuid(), V4);
  });

  it("never repeat, across several refills of the pool (256 ids a pool)", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomUuid();
      assert.match(id, V4);
      assert.ok(!seen.has(id), `repeated: ${id}`);
      seen.add(id);
    }
  });

  it("spread their random bits: every hex digit position but the fixed ones varies", () => {
    const ids = Array.from({ length: 300 }, () => randomUuid().replace(/-/g, ""));
    for (let pos = 0; pos < 32; pos++) {
      if (pos === 12) continue; // the version digit
      const digits = new Set(ids.map((id) => id[pos]));
      assert.ok(digits.size >= (pos === 16 ? 4 : 8), `position ${pos} took only ${[...digits].join("")}`);
    }
  });
});
