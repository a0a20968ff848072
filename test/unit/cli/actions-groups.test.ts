import { strict as assert } from "node:assert";
import { ActionsTranscriptGroups } from "../../../src/cli/actions-groups";
import type { RunEvent } from "../../../src/core/run/run-events";

const AT = "2026-12-01T18:00:00.000Z";

/**
 * The workflow commands a runner would act on in `log`, read as GitHub's runner does: a line
 * `::name ...::data` is a command unless commands are stopped by `::stop-commands::<t>`, until a
 * line `::<t>::` resumes them.
 */
function commandsSeen(log: string[]): string[] {
  const seen: string[] = [];
  let stoppedBy: string | null = null;
  for (const line of log) {
    if (stoppedBy !== null) {
      if (line === `::${stoppedBy}::`) {
        stoppedBy = null;
        seen.push("resume");
      }
      continue;
    }
    const m = /^::([A-Za-z-]+)(?: [^:]*)?::(.*)$/.exec(line);
    if (!m) continue;
    seen.push(m[1]!);
    if (m[1] === "stop-commands") stoppedBy = m[2]!;
  }
  return seen;
}

const HOSTILE = [
  "::endgroup::",
  "::error title=pwned::the agent says so",
  "::add-mask::x",
  "::set-output name=a::b",
  "done\n::warning::second line of one text event\r::notice::after a CR",
  "::stop-commands::agent-token",
  "::agent-token::",
  "\u001b[2K::error::after an escape",
].join("\n");

function play(events: RunEvent[], token?: () => string): string[] {
  const out: string[] = [];
  const groups = new ActionsTranscriptGroups((l) => out.push(l), token);
  for (const e of events) groups.onEvent(e);
  return out;
}

function ticket(n: number, lane: number, title: string, text: string): RunEvent[] {
  return [
    { kind: "lane-started", lane, ticket: n, title, resumed: false, at: AT },
    { kind: "stage-started", lane, ticket: n, stage: "implement", at: AT },
    { kind: "transcript", lane, ticket: n, stage: "implement", event: { kind: "text", text } },
    { kind: "transcript", lane, ticket: n, stage: "implement", event: { kind: "tool", name: "Bash", summary: "echo ::error::x" } },
  ];
}

describe("Actions: a ticket's transcript is a group with workflow commands stopped inside it", () => {
  it("agent text can neither close the group nor run a command; two interleaved Lanes give two whole groups", () => {
    const a = ticket(3, 0, "Add ::error::title", HOSTILE);
    const b = ticket(4, 1, "Plain", "hello");
    const log = play([
      a[0]!,
      b[0]!,
      a[1]!,
      b[1]!,
      a[2]!,
      b[2]!,
      a[3]!,
      b[3]!,
      { kind: "ticket-ended", lane: 1, ticket: 4, ending: "merged", line: "merged", at: AT },
      { kind: "ticket-ended", lane: 0, ticket: 3, ending: "handed-off", line: "x", at: AT },
    ]);
    assert.deepEqual(commandsSeen(log), ["group", "stop-commands", "resume", "endgroup", "group", "stop-commands", "resume", "endgroup"], log.join("\n"));
    assert.equal(log[0], "::group::#4 Plain · merged");
    const second = log.indexOf("::group::#3 Add ::error::title · handed-off");
    assert.ok(second > 0, log.join("\n"));
    assert.ok(log.slice(second).includes("[implement] ::endgroup::"), "the hostile line is kept, as text, inside the group");
    assert.ok(!log.some((l) => l.includes("\u001b")), "no control characters");
  });

  it("draws a new token when the text already contains the one drawn", () => {
    const tokens = ["leaked", "fresh"];
    const log = play(
      [...ticket(5, 0, "T", "I know ::leaked:: resumes"), { kind: "ticket-ended", lane: 0, ticket: 5, ending: "merged", line: "", at: AT }],
      () => tokens.shift()!,
    );
    assert.ok(log.includes("::stop-commands::fresh"), log.join("\n"));
    assert.ok(!log.includes("::stop-commands::leaked"));
    assert.deepEqual(commandsSeen(log), ["group", "stop-commands", "resume", "endgroup"]);
  });

  it("a ticket still held when the Run ends gets its group too; a fresh random token per group", () => {
    const log = play([...ticket(6, 0, "A", "a"), ...ticket(7, 1, "B", "b"), { kind: "run-ended", exitCode: 0, lines: [], at: AT }]);
    const tokens = log.filter((l) => l.startsWith("::stop-commands::")).map((l) => l.slice(17));
    assert.equal(tokens.length, 2);
    assert.notEqual(tokens[0], tokens[1]);
    assert.ok(tokens.every((t) => /^[0-9a-f]{32}$/.test(t)));
    assert.match(log[0]!, /^::group::#6 A · not ended$/);
  });
});
