import { strict as assert } from "node:assert";
import { formatCommand } from "../../../src/adapters/git/run-check";
import { contentSummary, parseStateFile, serializeState } from "../../../src/adapters/git/records";
import { parseLockFile } from "../../../src/adapters/git/lock-view";
import { checkTranscriptName } from "../../../src/adapters/git/transcripts";
import { redactSecrets } from "../../../src/core/redact";
import { isLostRace, isMissingRemoteRef } from "../../../src/adapters/git/git-runner";

const STATE = {
  ticket: 8,
  branch: "agent/8-x",
  state: "implemented" as const,
  fixUsed: false,
  pullRequest: 31,
  title: "feat: x (#8)",
  runId: "2026-09-17T09-00-00-000",
  version: "0.1.0",
  updatedAt: "2026-09-17T10:14:02.511Z",
};

describe("workspace: records on the remote", () => {
  it("a State file round-trips, readable, with its format number", () => {
    const text = serializeState(STATE);
    assert.match(text, /^\{\n {2}"ticket": 8,/);
    const parsed = parseStateFile("ticket-8.json", 8, text);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.state, { ...STATE, format: 1 });
  });

  it("a record without a format field (the first format) reads", () => {
    assert.ok(parseStateFile("ticket-8.json", 8, JSON.stringify(STATE)).ok);
  });

  it("summarises content for an error message: size, flattened, cut", () => {
    assert.equal(contentSummary('{\n  "a": 1\n}'), '12 bytes: "{ \\"a\\": 1 }"');
    assert.match(contentSummary("x".repeat(500)), /^500 bytes: "x{120}\.\.\."$/);
  });

  it("a lock file is free or names its holder; anything else does not parse", () => {
    assert.deepEqual(parseLockFile('{"held": false}'), { ok: true, lock: { held: false } });
    assert.equal(parseLockFile('{"held": true}').ok, false);
    assert.equal(parseLockFile("[]").ok, false);
    assert.equal(parseLockFile("").ok, false);
  });

  it("transcript names stay inside the run's directory", () => {
    assert.equal(checkTranscriptName("retry/implement-2.transcript.jsonl"), "retry/implement-2.transcript.jsonl");
    for (const bad of ["../x", "/etc/passwd", "a//b", ".git/config", "a/./b", "", "x\ny"])
      assert.throws(() => checkTranscriptName(bad), /plain relative path/, bad);
  });

  it("reads git's messages by their LC_ALL=C wording", () => {
    assert.ok(isMissingRemoteRef("fatal: couldn't find remote ref refs/heads/nope"));
    assert.ok(isLostRace("! [rejected] x -> x (stale info)"));
    assert.ok(isLostRace("remote: error: cannot lock ref 'refs/heads/ticket-runner/lock': is at 1 but expected 2"));
    assert.ok(!isLostRace("remote: Permission to acme/widgets.git denied to onlooker."));
  });

  it("formats argv so it pastes back into a shell", () => {
    assert.equal(formatCommand(["npm", "test", "--", "--grep", "a b", "it's"]), "npm test -- --grep 'a b' 'it'\\''s'");
    assert.equal(redactSecrets("x-access-token:trsb_abcdefghijklmnop1234@host"), "x-access-token:***@host");
  });
});
