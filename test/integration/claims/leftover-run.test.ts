/**
 * A run directory left on this Host by a claim that has ended (taken over by someone else, then
 * maybe released) never traps its owner between `start` and `resume` (docs/adr/0125). Real CLI
 * processes, one clone and one run root per person, against the sandbox: bob starts, an admin takes
 * the ticket over (and releases it, or keeps it), and bob comes back.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLeaseComment } from "../../../src/core/claims/lease-comment";
import { FULL, useClaimsSandbox } from "./claims-sandbox";
import type { CliResult } from "./cli-process";
import { said, usePeople } from "./people";

describe("claims (integration): a leftover run directory of an ended claim", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write", bob: "write", boss: "admin" } });
  const people = usePeople(s, ["bob", "boss"]);

  const cli = (user: string, args: string[]): Promise<CliResult> => people.cli(user, args);
  const runDir = (user: string, n: number) => people.runDir(user, n);
  /** The next command a refusal points to: the `Next:` line, else the last `ticket-runner …` it names. */
  const nextOf = (r: CliResult): string | null => {
    const next = /^Next: (.+)$/m.exec(r.stderr)?.[1];
    if (next) return next.trim();
    const all = [...r.stderr.matchAll(/`(ticket-runner [^`]+)`|(?:^|: )(ticket-runner [^`\n]+?)\s*$/gm)];
    const last = all.at(-1);
    return last ? (last[1] ?? last[2] ?? null) : null;
  };

  /** Runs `args`, then each refusal's next command, until one does not refuse (or a command comes back). */
  async function follow(user: string, args: string[]): Promise<CliResult[]> {
    const seen = new Set<string>();
    const ran: CliResult[] = [];
    let cmd: string | null = `ticket-runner ${args.join(" ")}`;
    while (cmd && !seen.has(cmd) && ran.length < 4) {
      seen.add(cmd);
      const r = await cli(user, cmd.split(" ").slice(1));
      ran.push(r);
      if (r.code !== 2) return ran;
      cmd = nextOf(r);
      assert.ok(cmd && !seen.has(cmd), `a refusal points back to a command that refused: ${cmd}\n${ran.map(said).join("\n---\n")}`);
    }
    return ran;
  }

  async function leases(n: number) {
    const comments = await s.tracker("alice").listComments(n);
    return comments.flatMap((c) => {
      const p = parseLeaseComment(c.body, { repo: FULL, issue: n });
      return p.kind === "lease" ? [{ url: c.url, author: c.author, state: p.lease.state }] : [];
    });
  }

  async function takenOverFromBob(title: string, release: boolean): Promise<number> {
    const n = await s.issue(title);
    const started = await cli("bob", ["start", String(n)]);
    assert.equal(started.code, 0, said(started));
    const taken = await cli("boss", ["start", String(n), "--take-over"]);
    assert.equal(taken.code, 0, said(taken));
    if (release) {
      const released = await cli("boss", ["release", String(n)]);
      assert.equal(released.code, 0, said(released));
    }
    return n;
  }

  it("taken over and released by an admin: bob's start sets his old run directory aside (kept) and claims the ticket", async () => {
    const n = await takenOverFromBob("taken, then put back", true);
    const old = JSON.parse(readFileSync(join(runDir("bob", n), "run.json"), "utf8")) as { session: string };

    const r = await cli("bob", ["start", String(n)]);
    assert.equal(r.code, 0, said(r));
    assert.match(r.stdout, /^Claimed acme\/widgets#\d+\./m, said(r));
    assert.match(r.stdout, /earlier claim of yours .*was taken over by @boss on host "boss-box"/, said(r));
    assert.match(r.stdout, new RegExp(`moved to ${runDir("bob", n).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/superseded/`), said(r));
    const aside = readdirSync(join(runDir("bob", n), "superseded"));
    assert.equal(aside.length, 1, aside.join(","));
    const kept = JSON.parse(readFileSync(join(runDir("bob", n), "superseded", aside[0]!, "run.json"), "utf8")) as { session: string };
    assert.equal(kept.session, old.session, "the old run.json is kept, not deleted");
    const fresh = JSON.parse(readFileSync(join(runDir("bob", n), "run.json"), "utf8")) as { session: string; commentId: number };
    assert.notEqual(fresh.session, old.session);
    assert.deepEqual(
      (await leases(n)).map((l) => `${l.author}:${l.state}`),
      ["bob:superseded", "boss:released", "bob:claimed"],
    );
  });

  it("resume of that ticket says what became of the claim and points to start, which works: no loop", async () => {
    const n = await takenOverFromBob("taken, put back, resumed", true);
    const resumed = await cli("bob", ["resume", String(n)]);
    assert.equal(resumed.code, 2, said(resumed));
    assert.match(resumed.stderr, /taken over by @boss on host "boss-box"/, said(resumed));
    assert.equal(nextOf(resumed), `ticket-runner start ${n}`, said(resumed));
    const ran = await follow("bob", ["resume", String(n)]);
    assert.deepEqual(
      ran.map((r) => r.code),
      [2, 0],
      ran.map(said).join("\n---\n"),
    );
  });

  it("taken over and still held by the admin: bob's start and resume both point to the take-over, which works", async () => {
    const n = await takenOverFromBob("taken and kept", false);
    for (const cmd of ["start", "resume"]) {
      const r = await cli("bob", [cmd, String(n)]);
      assert.equal(r.code, 2, said(r));
      assert.match(r.stderr, /claimed by @boss on host "boss-box"/, said(r));
      assert.equal(nextOf(r), `ticket-runner start ${n} --take-over`, `${cmd}: ${said(r)}`);
    }
    assert.ok(existsSync(join(runDir("bob", n), "run.json")), "a refusal moves nothing");
    const back = await cli("bob", ["start", String(n), "--take-over"]);
    assert.equal(back.code, 0, said(back));
  });
});
