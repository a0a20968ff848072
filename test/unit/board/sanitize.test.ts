import { strict as assert } from "node:assert";
import fc from "fast-check";
import { buildBoard } from "../../../src/core/board/build";
import { sanitizeInline, sanitizeTitle } from "../../../src/core/board/sanitize";
import { shortDuration } from "../../../src/core/board/durations";
import { input, issue } from "./board-fixtures";

const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2067\uFEFF]/; // eslint-disable-line no-control-regex

describe("board model: titles from strangers", () => {
  it("flattens newlines and keeps Markdown and HTML as literal text", () => {
    assert.equal(sanitizeTitle("Fix **bold**\n<script>alert(1)</script>\r\n\tthen"), "Fix **bold** <script>alert(1)</script> then");
  });

  it("cuts 1,000 characters to 120 with an ellipsis, without splitting a surrogate pair", () => {
    const title = sanitizeTitle("😀".repeat(1000));
    assert.equal(Array.from(title).length, 120);
    assert.ok(title.endsWith("…"));
    assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(title), "no lone high surrogate");
  });

  it("strips bidi overrides and isolates a right-to-left title", () => {
    const title = sanitizeTitle("\u202Egnp.exe\u202C");
    assert.equal(title, "gnp.exe");
    const rtl = sanitizeTitle("תיקון באג בעגלה");
    assert.equal(rtl, "\u2068תיקון באג בעגלה\u2069");
  });

  it("never returns an empty label", () => {
    assert.equal(sanitizeTitle(" \n\u200B\t "), "(untitled)");
    assert.equal(sanitizeInline("", 10, "?"), "?");
  });

  it("property: any title makes a one-line row label of bounded length, and building never throws", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 1200 }), { maxLength: 20 }), (titles) => {
        const model = buildBoard(input(titles.map((t, i) => issue(i + 1, { title: t }))));
        for (const s of model.sections) {
          for (const r of s.rows) {
            assert.ok(!FORBIDDEN.test(r.title.replace(/^\u2068|\u2069$/g, "")), JSON.stringify(r.title));
            assert.ok(Array.from(r.title).length <= 122);
            assert.ok(r.title.length > 0);
          }
        }
        assert.equal(model.total, titles.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe("board model: durations", () => {
  it("writes <1m, minutes, hours up to two days, then days", () => {
    assert.deepEqual([0, 59_000, 60_000, 59 * 60_000, 3600_000, 47 * 3600_000, 48 * 3600_000, -5].map(shortDuration), [
      "<1m",
      "<1m",
      "1m",
      "59m",
      "1h",
      "47h",
      "2d",
      "<1m",
    ]);
  });
});
