/**
 * Property-based fuzzing (fast-check) of every parser that reads bytes someone else wrote:
 * lease comments, marker lines, agent stream events, config, State files and lock files.
 * Properties: no input makes a parser throw; whatever a parser accepts satisfies its schema and
 * names what it should; rendering then parsing gives back what was rendered; text inside the
 * archive (after <details>) never changes what a lease comment means.
 * Cases per property: TR_FUZZ_RUNS (default 2000). The total is printed and recorded.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { parseStreamLine } from "../../../src/adapters/agent/stream-events";
import { parseLockFile } from "../../../src/adapters/git/lock-view";
import { parseStateFile, serializeState } from "../../../src/adapters/git/records";
import { loadConfigOrDefaults as readConfig } from "../../../src/app/config-load";
import { parseLeaseComment, renderLeaseComment } from "../../../src/core/claims/lease-comment";
import { leaseMarker, parseMarkerLine } from "../../../src/core/claims/marker";
import { loadConfig } from "../../../src/app/config-load";
import { isRefusal } from "../../../src/core/errors";
import { configSchema } from "../../../src/core/schemas/config";
import { leaseSchema, type Lease } from "../../../src/core/schemas/lease";
import { lockFileSchema } from "../../../src/core/schemas/lock-file";
import { stateFileSchema, type StateFile } from "../../../src/core/schemas/state-file";
import { record } from "../support/figures";

const TEST = "test/reliability/quick/fuzz.test.ts";
const RUNS = Number(process.env.TR_FUZZ_RUNS ?? 2000);
const REPO = "acme/widgets";

/** Any text: full unicode, controls, lone surrogates. */
const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.string({ maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 80 }));
const iso = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
const word = (max: number) => fc.string({ unit: "binary", minLength: 1, maxLength: max });

const leaseArb: fc.Arbitrary<Lease> = fc.record(
  {
    version: fc.constant(1),
    repo: fc.constant(REPO),
    issue: fc.integer({ min: 1, max: 1_000_000 }),
    host: fc.record({ id: word(200), name: word(200), kind: fc.constantFrom("workstation" as const, "cloud" as const) }, { noNullPrototype: true }),
    session: word(200),
    run: word(200),
    holder: fc.constantFrom("person" as const, "machine" as const),
    user: word(100),
    claimedAt: iso,
    expiresAt: fc.option(iso, { nil: null }),
    nonce: fc.string({ unit: "binary", minLength: 8, maxLength: 64 }),
    state: fc.constantFrom(
      "claimed" as const,
      "running" as const,
      "race-yielded" as const,
      "released" as const,
      "handed-off" as const,
      "finished" as const,
      "superseded" as const,
    ),
    stage: fc.string({ maxLength: 40 }),
    renewedAt: iso,
    yieldedTo: word(64),
  },
  { requiredKeys: ["version", "repo", "issue", "host", "session", "run", "holder", "user", "claimedAt", "expiresAt", "nonce", "state"], noNullPrototype: true },
);

let total = 0;
function check<T>(name: string, arb: fc.Arbitrary<T>, property: (v: T) => void, runs = RUNS): void {
  fc.assert(fc.property(arb, property), { numRuns: runs });
  total += runs;
  counts.set(name, (counts.get(name) ?? 0) + runs);
}
const counts = new Map<string, number>();

describe("reliability: property-based fuzzing of every parser of foreign bytes", function () {
  this.timeout(300_000);

  after(() => {
    const by = [...counts].map(([k, v]) => `${k} ${v}`).join(", ");
    process.stdout.write(`      fuzz: ${total} cases ran (${by})\n`);
    const part = (prefix: string) => [...counts].filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);
    record("fuzz.lease", { what: "lease comment parser: never throws, accepts only valid leases, round-trips", test: TEST, cases: part("lease"), losses: 0 });
    record("fuzz.marker", { what: "marker line parser: never throws, round-trips", test: TEST, cases: part("marker"), losses: 0 });
    record("fuzz.agent-events", { what: "agent stream event parser: never throws, classifies every line", test: TEST, cases: part("events"), losses: 0 });
    record("fuzz.config", { what: "config: never throws; valid or a bad-config refusal", test: TEST, cases: part("config"), losses: 0 });
    record("fuzz.records", { what: "State and lock file parsers: never throw, accept only valid records", test: TEST, cases: part("records"), losses: 0 });
  });

  it("lease comments: a rendered lease reads back as itself", () => {
    check("lease.roundtrip", leaseArb, (l) => {
      const back = parseLeaseComment(renderLeaseComment(l), { repo: REPO, issue: l.issue });
      assert.equal(back.kind, "lease");
      if (back.kind === "lease") assert.deepEqual(back.lease, l);
    });
  });

  it("lease comments: any body (random, or a real lease mutated) never throws; what parses is a valid lease for this issue", () => {
    const mutated = fc.tuple(leaseArb, fc.nat(), fc.nat(), anyText).map(([l, at, cut, insert]) => {
      const body = renderLeaseComment(l);
      const i = at % (body.length + 1);
      return { issue: l.issue, body: body.slice(0, i) + insert + body.slice(i + (cut % 20)) };
    });
    const random = fc.tuple(fc.integer({ min: 1, max: 99 }), anyText).map(([issue, t]) => ({ issue, body: `${leaseMarker(REPO, issue)}\n${t}` }));
    check("lease.mutated", fc.oneof(mutated, random), ({ issue, body }) => {
      const got = parseLeaseComment(body, { repo: REPO, issue });
      if (got.kind === "lease") {
        assert.ok(leaseSchema.safeParse(got.lease).success);
        assert.equal(got.lease.issue, issue);
        assert.equal(got.lease.repo.toLowerCase(), REPO);
      }
      if (got.kind === "ignored") assert.ok(got.reason.length > 0 && !got.reason.includes("\n"));
    });
  });

  it("lease comments: nothing after the first <details> changes what the comment means", () => {
    check("lease.archive", fc.tuple(leaseArb, anyText), ([l, junk]) => {
      const body = renderLeaseComment(l);
      const plain = parseLeaseComment(body, { repo: REPO, issue: l.issue });
      const archived = parseLeaseComment(`${body}\n\n<details>${junk}\n${renderLeaseComment({ ...l, state: "finished" })}`, { repo: REPO, issue: l.issue });
      assert.deepEqual(archived, plain);
    });
  });

  it("marker lines: never throw; a parsed marker renders back to itself", () => {
    const near = fc.tuple(anyText, anyText).map(([a, b]) => `<!-- ticket-runner:lease${a}#${b} -->`);
    check("marker.any", fc.oneof(anyText, near), (line) => {
      const m = parseMarkerLine(line);
      if (m.kind === "marker") assert.deepEqual(parseMarkerLine(leaseMarker(m.repo, m.issue)), { ...m, version: 1 });
    });
  });

  it("agent events: any line, any JSON, any event with drifted fields is classified, never thrown", () => {
    const types = fc.constantFrom("system", "assistant", "user", "result", "rate_limit_event", "stream_event", "", "RESULT");
    const drifted = fc
      .tuple(types, fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }))
      .map(([type, rest]) => JSON.stringify({ ...rest, type }));
    check("events.lines", fc.oneof(anyText, fc.json({ maxDepth: 4 }), drifted), (line) => {
      const got = parseStreamLine(line, 1);
      assert.ok(["system", "assistant", "user", "result", "rate-limit", "ignored", "damage"].includes(got.kind));
      if (got.kind === "damage" || got.kind === "ignored") assert.ok(got.reason.startsWith("line 1"));
    });
  });

  it("config: any JSON value is either a Config or a schema error, never a throw", () => {
    const nearConfig = fc.record(
      {
        lanes: fc.jsonValue(),
        lockScope: fc.jsonValue(),
        agent: fc.oneof(fc.jsonValue(), fc.record({ kind: fc.jsonValue(), passGitHubToken: fc.jsonValue() })),
        lease: fc.jsonValue(),
        checks: fc.jsonValue(),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    check("config.schema", fc.oneof(fc.jsonValue({ maxDepth: 4 }), nearConfig), (value) => {
      const parsed = configSchema.safeParse(value);
      if (parsed.success) assert.ok(parsed.data.lanes >= 1 && parsed.data.lanes <= 16);
    });
  });

  it("config: any ticket-runner.json file reads as a Config or is refused as bad-config, by both readers", () => {
    const dir = mkdtempSync(join(tmpdir(), "tr-rel-fuzz-config-"));
    try {
      check(
        "config.file",
        fc.oneof(anyText, fc.json({ maxDepth: 3 })),
        (text) => {
          writeFileSync(join(dir, "ticket-runner.json"), text);
          for (const read of [() => loadConfig(dir), () => readConfig(dir)]) {
            try {
              read();
            } catch (e) {
              assert.ok(isRefusal(e) && e.reason === "bad-config", String(e));
            }
          }
        },
        Math.max(50, Math.floor(RUNS / 5)),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("State and lock files: any content never throws; what is accepted is a valid record", () => {
    const stateArb: fc.Arbitrary<StateFile> = fc.record(
      {
        ticket: fc.integer({ min: 1, max: 1_000_000 }),
        branch: fc.string({ minLength: 1, maxLength: 255 }),
        state: fc.constantFrom("claimed" as const, "implemented" as const),
        fixUsed: fc.boolean(),
        pullRequest: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: null }),
        title: fc.option(fc.string({ maxLength: 300 }), { nil: null }),
        runId: word(40),
        version: word(20),
        updatedAt: iso,
      },
      { noNullPrototype: true },
    );
    // A State file may only name its own ticket's branch (anyone who can push writes it), so the
    // round trip is over records that do; any other branch is refused, which records.state-any covers.
    const ownStateArb = fc
      .tuple(stateArb, fc.stringMatching(/^[a-z0-9]+(-[a-z0-9]+){0,4}$/))
      .map(([s, slug]) => ({ ...s, branch: `agent/${s.ticket}-${slug}` }));
    check("records.state-roundtrip", ownStateArb, (s) => {
      const back = parseStateFile(`ticket-${s.ticket}.json`, s.ticket, serializeState(s));
      assert.ok(back.ok);
      if (back.ok) assert.deepEqual({ ...back.state, format: undefined }, { ...s, format: undefined });
    });
    const contents = fc.oneof(
      anyText,
      fc.json({ maxDepth: 3 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    );
    check("records.state-any", contents, (c) => {
      const got = parseStateFile("ticket-7.json", 7, c);
      if (got.ok) assert.ok(stateFileSchema.safeParse(got.state).success && got.state.ticket === 7);
      else assert.ok(got.reason.includes("ticket-7.json"));
    });
    check("records.lock-any", contents, (c) => {
      const got = parseLockFile(c);
      if (got.ok) assert.ok(lockFileSchema.safeParse(got.lock).success);
      else assert.ok(got.reason.length > 0);
    });
  });
});
