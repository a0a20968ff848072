import { strict as assert } from "node:assert";
import fc from "fast-check";
import { decideOutcome } from "../../../src/adapters/agent/outcome";
import type { SessionFacts } from "../../../src/adapters/agent/outcome";
import type { ResultEvent } from "../../../src/adapters/agent/stream-events";

function result(over: Partial<ResultEvent> = {}): ResultEvent {
  return { type: "result", subtype: "success", is_error: false, num_turns: 3, result: "Done.", ...over };
}

function facts(over: Partial<SessionFacts> = {}): SessionFacts {
  return {
    aborted: false,
    timedOut: false,
    timeoutMs: 60_000,
    exitCode: 0,
    signal: null,
    result: result(),
    sawRejectedRateLimit: false,
    damage: [],
    stderrTail: "",
    spawnError: null,
    ...over,
  };
}

const failed = { exitCode: 1, result: result({ subtype: "error_during_execution", is_error: true, result: "boom" }) };

describe("decideOutcome", () => {
  it("a clean success", () => {
    assert.deepEqual(decideOutcome(facts()), { outcome: "success" });
  });

  it("a success is never rate-limited, whatever it says or saw", () => {
    const d = decideOutcome(
      facts({ result: result({ result: "hit the usage limit; rate_limit; session limit" }), stderrTail: "rate limit", sawRejectedRateLimit: true }),
    );
    assert.equal(d.outcome, "success");
  });

  it("each sign alone makes a failed session rate-limited, read in ADR 0050's order", () => {
    assert.equal(decideOutcome(facts({ ...failed, result: result({ is_error: true, api_error_status: 429 }) })).rateLimitSign, "api-error-429");
    assert.equal(decideOutcome(facts({ ...failed, sawRejectedRateLimit: true })).rateLimitSign, "rejected-event");
    for (const words of ["usage limit", "Session limit", "RATE LIMIT", "rate_limit_error"]) {
      assert.equal(
        decideOutcome(facts({ ...failed, result: result({ subtype: "error_during_execution", is_error: true, result: `x ${words} y` }) })).rateLimitSign,
        "result-wording",
        words,
      );
    }
    assert.equal(decideOutcome(facts({ ...failed, stderrTail: "Error: usage limit reached\n" })).rateLimitSign, "stderr-wording");
    const all = decideOutcome(
      facts({
        ...failed,
        result: result({ is_error: true, api_error_status: 429, result: "usage limit" }),
        sawRejectedRateLimit: true,
        stderrTail: "rate limit",
      }),
    );
    assert.equal(all.rateLimitSign, "api-error-429");
  });

  it("a 500 or an allowed_warning is not a rate limit", () => {
    assert.equal(decideOutcome(facts({ ...failed, result: result({ is_error: true, api_error_status: 500, result: "API Error" }) })).outcome, "nonzero-exit");
  });

  it("a rate limit wins over a timeout (a stalled session is the limit's fault)", () => {
    assert.equal(decideOutcome(facts({ timedOut: true, exitCode: null, signal: "SIGTERM", result: null, sawRejectedRateLimit: true })).outcome, "rate-limited");
    assert.equal(decideOutcome(facts({ timedOut: true, exitCode: null, signal: "SIGTERM", result: null })).outcome, "timed-out");
  });

  it("turn-capped, nonzero-exit, invalid-result, and an error result exiting 0", () => {
    assert.equal(
      decideOutcome(facts({ exitCode: 1, result: result({ subtype: "error_max_turns", is_error: true, result: undefined }) })).outcome,
      "turn-capped",
    );
    assert.match(decideOutcome(facts({ exitCode: 3, result: null, stderrTail: "Segfault\n" })).detail ?? "", /exited 3: Segfault/);
    assert.match(decideOutcome(facts({ exitCode: null, signal: "SIGKILL", result: null })).detail ?? "", /killed by SIGKILL/);
    assert.equal(decideOutcome(facts({ damage: ["line 2 is not JSON"] })).outcome, "invalid-result");
    assert.equal(decideOutcome(facts({ result: null })).outcome, "invalid-result");
    assert.equal(decideOutcome(facts({ result: result({ subtype: "error_during_execution", is_error: true }) })).outcome, "nonzero-exit");
    assert.equal(decideOutcome(facts({ result: result({ subtype: "success", is_error: true }) })).outcome, "nonzero-exit");
  });

  it("aborted and could-not-start come first", () => {
    assert.equal(decideOutcome(facts({ aborted: true, sawRejectedRateLimit: true })).outcome, "nonzero-exit");
    assert.match(decideOutcome(facts({ spawnError: "could not start" })).detail ?? "", /could not start/);
  });

  it("property: success only for a clean session; rate-limited never for one", () => {
    const arb = fc.record({
      aborted: fc.boolean(),
      timedOut: fc.boolean(),
      exitCode: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      subtype: fc.constantFrom("success", "error_max_turns", "error_during_execution"),
      isError: fc.boolean(),
      api: fc.option(fc.constantFrom(429, 500), { nil: undefined }),
      text: fc.constantFrom("ok", "usage limit", "rate_limit"),
      rejected: fc.boolean(),
      damage: fc.boolean(),
      stderr: fc.constantFrom("", "session limit"),
      hasResult: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, (a) => {
        const f = facts({
          aborted: a.aborted,
          timedOut: a.timedOut,
          exitCode: a.exitCode,
          result: a.hasResult ? result({ subtype: a.subtype, is_error: a.isError, api_error_status: a.api, result: a.text }) : null,
          sawRejectedRateLimit: a.rejected,
          damage: a.damage ? ["x"] : [],
          stderrTail: a.stderr,
        });
        const clean = !a.aborted && !a.timedOut && a.exitCode === 0 && !a.damage && a.hasResult && a.subtype === "success" && !a.isError;
        const d = decideOutcome(f);
        assert.equal(d.outcome === "success", clean);
        if (d.outcome === "rate-limited") assert.ok(d.rateLimitSign);
      }),
      { numRuns: 1000 },
    );
  });
});
