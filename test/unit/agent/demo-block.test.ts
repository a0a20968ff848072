import { strict as assert } from "node:assert";
import fc from "fast-check";
import { behavioursOf, extractIssue, parseDemoBlock, uncheckedCriteria, DemoInputError } from "../../../src/sandbox/demo-agent/demo-block";
import { parseDemoArgs, ArgvError } from "../../../src/sandbox/demo-agent/argv";
import { DEMO_ISSUES } from "../../../src/sandbox/seeds/demo-project";

const fence = (o: unknown): string => "```ticket-runner-demo\n" + JSON.stringify(o, null, 2) + "\n```";

describe("demo block", () => {
  it("every seeded demo issue carries a valid block", () => {
    for (const issue of DEMO_ISSUES) {
      const block = parseDemoBlock(issue.body);
      assert.ok(Object.keys(block.files).length > 0, issue.title);
      assert.equal(block.criteria.length, uncheckedCriteria(issue.body).length, `${issue.title}: one rule per criterion`);
    }
  });

  it("extracts the issue between <<<ISSUE and ISSUE>>>", () => {
    const issue = extractIssue("Intro\n<<<ISSUE\nThe title\nline 1\n\nline 3\nISSUE>>>\nCriteria: ...");
    assert.deepEqual(issue, { title: "The title", body: "line 1\n\nline 3" });
    assert.throws(() => extractIssue("no markers"), DemoInputError);
  });

  it("reads behaviours, with stage qualifiers", () => {
    const b = behavioursOf(
      parseDemoBlock(
        fence({
          files: { a: "x" },
          fixFiles: { a: "y" },
          behaviours: ["fail-checks-once", "rate-limit-once:verify", "crash:fix", "slow:250", "burst:20000", "conflict"],
        }),
      ),
    );
    assert.deepEqual(b, { failChecksOnce: true, unmetCriteria: false, conflict: true, rateLimitOnce: "verify", crash: "fix", slowMs: 250, burst: 20000 });
    assert.equal(behavioursOf(parseDemoBlock(fence({ files: { a: "x" }, behaviours: ["rate-limit-once"] }))).rateLimitOnce, "any");
  });

  it("refuses inconsistent behaviours with the fix named", () => {
    assert.throws(() => parseDemoBlock(fence({ files: { a: "x" }, behaviours: ["fail-checks-once"] })), /needs fixFiles/);
    assert.throws(
      () => parseDemoBlock(fence({ files: { a: "done" }, criteria: [{ file: "a", contains: "done" }], behaviours: ["unmet-criteria"] })),
      /already meet every criterion/,
    );
    assert.throws(() => parseDemoBlock(fence({ files: {} })), /at least one file/);
    assert.throws(() => parseDemoBlock(fence({ files: { "/etc/passwd": "x" } })), /relative path/);
    assert.throws(() => parseDemoBlock(fence({ files: { "a//b": "x" } })), /empty segments/);
  });

  it("criteria: unticked items only, outside code fences", () => {
    const body = "- [ ] one\n- [x] done\n* [ ] two\n```\n- [ ] in code\n```\n  - [ ] three";
    assert.deepEqual(uncheckedCriteria(body), ["one", "two", "three"]);
  });

  it("fuzz: any body gives a block or a DemoInputError, never another exception", () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => "```ticket-runner-demo\n" + JSON.stringify(v) + "\n```"),
        ),
        (body) => {
          n += 1;
          try {
            parseDemoBlock(body);
          } catch (e) {
            assert.ok(e instanceof DemoInputError, String(e));
          }
        },
      ),
      { numRuns: 1000 },
    );
    assert.equal(n, 1000);
  });
});

describe("demo agent argv (claude's)", () => {
  it("parses what the runner passes", () => {
    const a = parseDemoArgs([
      "-p",
      "the prompt",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--max-turns",
      "9",
      "--model",
      "m",
      "--json-schema",
      '{"a":1}',
    ]);
    assert.deepEqual(a, { prompt: "the prompt", outputFormat: "stream-json", permissionMode: "acceptEdits", maxTurns: 9, model: "m", jsonSchema: { a: 1 } });
  });

  it("reads the prompt from stdin when -p has none, and rejects what it does not know", () => {
    assert.equal(parseDemoArgs(["-p", "--output-format", "stream-json"]).prompt, null);
    assert.throws(() => parseDemoArgs(["-p", "x", "--output-format", "text"]), ArgvError);
    assert.throws(() => parseDemoArgs(["-p", "x", "--output-format", "stream-json", "--danger"]), ArgvError);
    assert.throws(() => parseDemoArgs(["-p", "x", "--output-format", "stream-json", "--max-turns", "0"]), ArgvError);
  });
});
