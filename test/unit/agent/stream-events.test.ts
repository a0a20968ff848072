import { strict as assert } from "node:assert";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { parseStreamLine } from "../../../src/adapters/agent/stream-events";
import { toAgentEvents } from "../../../src/adapters/agent/event-mapper";

const FIXTURES = join(__dirname, "../../fixtures/claude-streams");

describe("stream-events: parsing Claude Code stream-json lines", () => {
  it("reads every well-formed fixture line as a known event or an ignored one, never damage", () => {
    const recorded = readdirSync(FIXTURES)
      .filter((f) => f.startsWith("real-") && f.endsWith(".jsonl"))
      .map((f) => f.replace(/\.jsonl$/, ""));
    assert.ok(recorded.length >= 10, "the streams recorded from the real claude are read too");
    const clean = [
      "success",
      "success-structured",
      "success-mentions-limits",
      "rate-limit-429",
      "rate-limit-rejected-event",
      "rate-limit-result-wording",
      "unknown-events",
      "leaks-token",
      ...recorded,
    ];
    for (const name of clean) {
      const lines = readFileSync(join(FIXTURES, `${name}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .filter((l) => l.length > 0);
      lines.forEach((line, i) => assert.notEqual(parseStreamLine(line, i + 1).kind, "damage", `${name}:${i + 1}`));
    }
  });

  it("classifies each documented event type", () => {
    const lines = readFileSync(join(FIXTURES, "success-structured.jsonl"), "utf8").trim().split("\n");
    const kinds = lines.map((l, i) => parseStreamLine(l, i + 1).kind);
    assert.equal(kinds[0], "system");
    assert.ok(kinds.includes("assistant") && kinds.includes("user"));
    assert.equal(kinds[kinds.length - 1], "result");
    const result = parseStreamLine(lines[lines.length - 1]!, lines.length);
    assert.ok(result.kind === "result" && typeof result.event.structured_output === "object");
  });

  it("reads rate_limit_event statuses and ignores an unknown status with a reason", () => {
    const ok = parseStreamLine(JSON.stringify({ type: "rate_limit_event", rate_limit_info: { status: "rejected", resetsAt: 1 } }), 3);
    assert.ok(ok.kind === "rate-limit" && ok.event.rate_limit_info.status === "rejected");
    const odd = parseStreamLine(JSON.stringify({ type: "rate_limit_event", rate_limit_info: { status: "maybe" } }), 4);
    assert.equal(odd.kind, "ignored");
    assert.match(odd.kind === "ignored" ? odd.reason : "", /^line 4: rate_limit_event unreadable \(rate_limit_info\.status/);
  });

  it("damage: not JSON, not an object, a result without its fields", () => {
    assert.equal(parseStreamLine("hello", 1).kind, "damage");
    assert.equal(parseStreamLine("[1,2]", 1).kind, "damage");
    assert.equal(parseStreamLine("42", 1).kind, "damage");
    const r = parseStreamLine(JSON.stringify({ type: "result", subtype: "success" }), 9);
    assert.equal(r.kind, "damage");
    assert.match(r.kind === "damage" ? r.reason : "", /^line 9: result event unreadable/);
  });

  it("an unknown type or a drifted known type is ignored, not fatal", () => {
    assert.equal(parseStreamLine(JSON.stringify({ type: "brand_new" }), 1).kind, "ignored");
    assert.equal(parseStreamLine(JSON.stringify({ type: "assistant", message: "not an object" }), 1).kind, "ignored");
    assert.equal(parseStreamLine(JSON.stringify({ type: "system", subtype: "init" }), 1).kind, "ignored");
    assert.equal(parseStreamLine(JSON.stringify({ type: "system", subtype: "compact_boundary" }), 1).kind, "system");
  });

  it("fuzz: any string, and any JSON value, parses to a classification without throwing (and maps to events)", () => {
    let cases = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ type: "assistant", message: { content: [v] } })),
        ),
        (line) => {
          cases += 1;
          const parsed = parseStreamLine(line, 1);
          assert.ok(["system", "assistant", "user", "result", "rate-limit", "ignored", "damage"].includes(parsed.kind));
          toAgentEvents(parsed, "/w");
        },
      ),
      { numRuns: 2000 },
    );
    assert.equal(cases, 2000);
  });

  it("fuzz: event-shaped objects with random field values never throw", () => {
    const types = fc.constantFrom("system", "assistant", "user", "result", "rate_limit_event", "other");
    fc.assert(
      fc.property(
        types,
        fc.dictionary(
          fc.constantFrom("subtype", "message", "is_error", "num_turns", "result", "rate_limit_info", "session_id", "model", "api_error_status"),
          fc.jsonValue(),
        ),
        (type, fields) => {
          const parsed = parseStreamLine(JSON.stringify({ ...fields, type }), 1);
          toAgentEvents(parsed, "/w");
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("the fixtures directory has a README saying where the shapes come from", () => {
    assert.ok(readdirSync(FIXTURES).includes("README.md"));
  });
});
