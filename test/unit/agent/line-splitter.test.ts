import { strict as assert } from "node:assert";
import fc from "fast-check";
import { LineSplitter } from "../../../src/adapters/agent/line-splitter";
import type { SplitLine } from "../../../src/adapters/agent/line-splitter";

function split(chunks: Buffer[], max?: number): SplitLine[] {
  const out: SplitLine[] = [];
  const s = new LineSplitter((l) => out.push(l), max);
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

describe("LineSplitter", () => {
  it("splits on newlines across chunk boundaries, including inside a multi-byte character", () => {
    const bytes = Buffer.from("é1\nsecond ✓\nthird");
    const chunks = [bytes.subarray(0, 1), bytes.subarray(1, 5), bytes.subarray(5, 13), bytes.subarray(13)];
    const lines = split(chunks);
    assert.deepEqual(
      lines.map((l) => (l.kind === "line" ? l.text : l.kind)),
      ["é1", "second ✓", "third"],
    );
    assert.deepEqual(
      lines.map((l) => l.lineNo),
      [1, 2, 3],
    );
  });

  it("drops CR of CRLF and skips blank lines (still counting them)", () => {
    const lines = split([Buffer.from("a\r\n\nb\n")]);
    assert.deepEqual(
      lines.map((l) => (l.kind === "line" ? [l.text, l.lineNo] : l.kind)),
      [
        ["a", 1],
        ["b", 3],
      ],
    );
  });

  it("reports a line that is not UTF-8, with a lossy copy", () => {
    const lines = split([Buffer.concat([Buffer.from("ok\ncaf"), Buffer.from([0xff]), Buffer.from("\n")])]);
    assert.equal(lines[1]!.kind, "invalid-utf8");
    assert.equal(lines[1]!.kind === "invalid-utf8" ? lines[1]!.lossy : "", "caf\uFFFD");
  });

  it("reports an oversize line without keeping it, then carries on", () => {
    const big = Buffer.alloc(1000, 0x61);
    const lines = split([Buffer.from("before\n"), big, big, Buffer.from("\nafter\n")], 1500);
    assert.deepEqual(
      lines.map((l) => l.kind),
      ["line", "oversize", "line"],
    );
    assert.equal(lines[1]!.bytes, 2000);
    assert.equal(lines[2]!.kind === "line" ? lines[2]!.text : "", "after");
  });

  it("property: any chunking of any text gives the same lines as splitting it whole", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 20 }), { maxLength: 8 }), fc.array(fc.nat(40), { maxLength: 6 }), (parts, cuts) => {
        const text = parts.join("\n");
        const bytes = Buffer.from(text);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(bytes.subarray(prev, p));
          prev = p;
        }
        chunks.push(bytes.subarray(prev));
        const got = split(chunks).map((l) => (l.kind === "line" ? l.text : `<${l.kind}>`));
        const expected = text
          .split("\n")
          .map((l) => l.replace(/\r$/, ""))
          .filter((l) => l.length > 0);
        assert.deepEqual(got, expected);
      }),
      { numRuns: 300 },
    );
  });
});
