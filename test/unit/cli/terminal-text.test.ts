/**
 * Text from GitHub (a lease's host, a lock's command, an issue title) and from an agent reaches the
 * terminal without control or bidi characters (docs/security.md): an escape sequence could
 * retitle the terminal, clear it or forge lines; a bidi override could make one name read as another.
 * Each door that prints such text is fed a hostile string through its real producer.
 */
import assert from "node:assert/strict";
import { describe, it } from "mocha";
import { describeElsewhere } from "../../../src/core/run/lock-refusal";
import type { CliIo } from "../../../src/cli/command";
import { stopRun } from "../../../src/cli/commands/stop";
import { main } from "../../../src/cli/main";
import { refusalText } from "../../../src/cli/refusal-text";
import { RunDisplay } from "../../../src/cli/run-display";
import { claimedElsewhere } from "../../../src/core/claims/refusals";
import type { LeaseRecord } from "../../../src/core/claims/lease-standing";
import { lockRefusal } from "../../../src/core/run/lock-refusal";
import type { LockFile } from "../../../src/core/schemas/lock-file";
import type { LockHolder } from "../../../src/ports/workspace";
import { lease } from "../claims/claims-fixtures";

// An OSC retitle, a screen clear, a carriage return, a right-to-left override, a forged next line.
const HOSTILE = "evil\x1b]0;owned\x07\x1b[2J\r\u202Egnp.exe\u2066x\u2069\nDone: 9 merged, 0 handed off.";

/** What a person would not see as written: any control but a line feed, any bidi override or invisible character. */
function unsafe(text: string): string[] {
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  return [...text.matchAll(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2067\uFEFF]/g)].map((m) => JSON.stringify(m[0]));
}

const NOW = new Date("2026-09-17T08:10:00.000Z");
const holder: LockHolder = {
  host: { id: "host-z", name: HOSTILE, kind: "cloud" },
  pid: 5151,
  command: `ticket-runner run ${HOSTILE}`,
  runId: "run-z",
  startedAt: "2026-09-17T07:55:00.000Z",
  processStartTime: null,
};

describe("CLI: text from GitHub and agents reaches the terminal inert", () => {
  it("the live display (a terminal and a log) draws a hostile title and agent text with no escape but its own", () => {
    for (const tty of [true, false]) {
      const out: string[] = [];
      const d = new RunDisplay({ line: (l) => out.push(l + "\n"), raw: (t) => out.push(t) }, tty, 100, () => 0);
      const at = "2026-09-17T08:00:00.000Z";
      d.onEvent({ kind: "run-started", runId: "r", lanes: 1, narrowedTo: null, at });
      d.onEvent({ kind: "lane-started", lane: 0, ticket: 4, title: HOSTILE, resumed: false, at });
      d.onEvent({ kind: "transcript", lane: 0, ticket: 4, stage: "implement", event: { kind: "text", text: HOSTILE } });
      d.onEvent({ kind: "ticket-ended", lane: 0, ticket: 4, ending: "handed-off", line: `#4 ${HOSTILE}`, at });
      // The display's own redraw (cursor up, clear below) is the only escape allowed.
      const ownRedraw = new RegExp(String.raw`\x1b\[\d+A\x1b\[0J`, "g");
      const text = out.join("").replace(ownRedraw, "");
      assert.deepEqual(unsafe(text), [], `tty ${tty}: ${JSON.stringify(text)}`);
      assert.ok(!/^Done: 9 merged/m.test(text), `tty ${tty}: no forged line`);
    }
  });

  it("stop, a lock from another Host: the lock's command and host are one inert line", async () => {
    const err: string[] = [];
    const lock: LockFile = {
      held: true,
      host: holder.host,
      pid: 5151,
      command: holder.command,
      runId: "run-z",
      startedAt: holder.startedAt,
      processStartTime: "boot:1",
    };
    const here = { id: "host-a", name: "desk", kind: "workstation" as const };
    const code = await stopRun(
      { readLock: async () => lock, host: { identity: () => here, pid: () => 1, processStartTime: async () => null, signal: () => true }, kill: () => {} },
      { out: () => {}, err: (l) => err.push(l) },
    );
    assert.equal(code, 2);
    assert.equal(err.length, 1);
    assert.deepEqual(unsafe(err[0]!), [], JSON.stringify(err[0]));
    assert.ok(!err[0]!.includes("\n"), "one line");
  });

  it("claimed elsewhere (the lease's host and session) and a held Run lock (its host and command): inert refusals", () => {
    const rec: LeaseRecord = {
      comment: {
        id: "901",
        url: "https://github.com/acme/widgets/issues/12#issuecomment-901",
        author: "bob",
        createdAt: "2026-09-17T08:00:00Z",
        updatedAt: "2026-09-17T08:00:00Z",
      },
      lease: lease({ host: { id: "host-x", name: HOSTILE, kind: "workstation" }, session: `\x1b[2J${HOSTILE}` }),
      finished: false,
    };
    for (const text of [
      refusalText(claimedElsewhere("acme/widgets", 12, rec, NOW)),
      refusalText(lockRefusal("elsewhere", holder)),
      refusalText(lockRefusal("running", holder)),
      describeElsewhere(holder),
    ]) {
      assert.deepEqual(unsafe(text), [], JSON.stringify(text));
      assert.ok(!/^Done: 9 merged/m.test(text), JSON.stringify(text));
    }
  });

  it("whatever a command prints goes through the same cleaning (main's io)", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env: { TICKET_RUNNER_STAGE: "" }, cwd: "/" };
    // An unknown command echoes what was typed: the one printing path every command shares.
    assert.equal(await main([HOSTILE], io), 2);
    assert.deepEqual(unsafe([...out, ...err].join("\n")), [], JSON.stringify(err));
  });
});
