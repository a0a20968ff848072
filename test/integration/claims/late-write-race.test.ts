/**
 * A claim write that lands late never wins (ADR 0172; since ADR 0380 claims rank by when their
 * lease landed, so a write held up lands, and ranks, after a rival's). Two Hosts race for one fresh ticket, over
 * real HTTP through Octokit against the sandbox, many times. Host A's claim write is held by the
 * sandbox (`holdWrites`) for 0-60 s of sandbox time before it lands; host B starts at a random
 * moment in that window and, when it wins, sometimes works the ticket to the end at once (finished,
 * issue closed). Time is driven (VirtualTime and the sandbox clock move together), so a 60 s delay
 * costs nothing. After each race, whoever believes it won runs the next thing a Run would (the
 * implement Stage's checkpoint, which reads first): counted as a Stage.
 *
 * Must show: 0 tickets worked by two Hosts, 0 Stages run on a closed ticket, and A never winning a
 * race in which B's claim landed while A's write was held.
 */
import { strict as assert } from "node:assert";
import type { ClaimAttempt } from "../../../src/core/claim-gate";
import { prng } from "../../support/prng";
import { rounds } from "../../support/rounds";
import { VirtualTime } from "../../support/virtual-time";
import { waitFor } from "../../support/wait-for";
import { FULL, NAME, OWNER, useClaimsSandbox } from "./claims-sandbox";

const RACES = Number(process.env.TR_LATE_RACES ?? rounds(200, 20));
const MAX_DELAY_MS = 60_000;

interface Party {
  done: boolean;
  started: boolean;
}

describe("claims (integration): a late-landing claim write never wins", function () {
  this.timeout(900_000);
  const s = useClaimsSandbox({ users: { alice: "write", bob: "write" } });

  it(`${RACES} races with host A's write delayed 0-60 s: 0 tickets worked by two Hosts, 0 Stages on a closed ticket`, async () => {
    const rnd = prng(Number(process.env.TR_SEED ?? 172));
    const time = new VirtualTime((offsetMs) => s.sandbox.admin.setClock(offsetMs));
    const a = s.claimer({ user: "alice", host: "host-a", clock: time.clockFor("a"), settleMs: 300 });
    const b = s.claimer({ user: "bob", host: "host-b", clock: time.clockFor("b"), settleMs: 300 });
    const admin = s.client("sandbox-admin");
    const f = {
      races: 0,
      aWon: 0,
      bWon: 0,
      neither: 0,
      bWhileAHeld: 0,
      lateWon: 0,
      bFinishedFirst: 0,
      twoHosts: 0,
      stagesOnClosed: 0,
      stagesRun: 0,
      delays: [] as number[],
    };

    for (let race = 0; race < RACES; race++) {
      const n = await s.issue(`race ${race}`);
      await s.sandbox.admin.setFaults({ holdWrites: { user: "alice", routes: "^POST /graphql$" } });
      const delay = Math.round(rnd() * MAX_DELAY_MS);
      const bAfter = Math.round(rnd() * (delay + 3_000));
      const bFinishes = rnd() < 0.5;
      f.delays.push(delay);
      const t0 = time.now();
      const pa: Party = { done: false, started: true };
      const pb: Party = { done: false, started: false };
      let aGot: ClaimAttempt | null = null;
      let bGot: ClaimAttempt | null = null;
      let released = false;
      let bClaimedWhileAHeld = false;
      let aStage: "held" | "yield" | null = null;
      let bStage: "held" | "yield" | null = null;
      let closedAt: number | null = null;

      const aRun = (async () => {
        aGot = await a.gate.claim(n);
        if (aGot.kind === "won") aStage = await a.gate.markStage(aGot.claim, "implement");
        pa.done = true;
      })();
      let bRun: Promise<void> = Promise.resolve();
      const startB = () => {
        pb.started = true;
        bRun = (async () => {
          bGot = await b.gate.claim(n);
          bClaimedWhileAHeld = bGot.kind === "won" && !released;
          if (bGot.kind === "won") {
            bStage = await b.gate.markStage(bGot.claim, "implement");
            // B works it to the end at once (an instant merge) while A's write is still held.
            if (bStage === "held" && bFinishes && !released) {
              await b.gate.finish(bGot.claim);
              await admin.request("PATCH /repos/{owner}/{repo}/issues/{issue_number}", { owner: OWNER, repo: NAME, issue_number: n, state: "closed" });
              closedAt = time.now();
            }
          }
          pb.done = true;
        })();
      };

      const events: { at: number; run: () => Promise<void> | void; done: boolean }[] = [
        { at: t0 + bAfter, run: startB, done: false },
        {
          at: t0 + delay,
          run: async () => {
            released = true;
            // Only the claim write is held: its release also ends the fault (and lets it go).
            assert.equal(await s.sandbox.admin.releaseHeld(), pa.done ? 0 : 1);
            await s.sandbox.admin.setFaults({});
          },
          done: false,
        },
      ];
      const busy = async (p: Party, party: string, held: boolean) => p.started && !p.done && !time.asleep(party) && !held;
      for (;;) {
        // Wait until every party is asleep, held by the sandbox, or done: nothing moves but time.
        await waitFor(
          async () => {
            const held = !released && (await s.sandbox.admin.heldWrites()) > 0;
            return !(await busy(pa, "a", held)) && !(await busy(pb, "b", false));
          },
          {
            timeoutMs: 60_000,
            intervalMs: 2,
            what: `race ${race}: the racers to settle (a: ${JSON.stringify(pa)} asleep ${time.asleep("a")}; b: ${JSON.stringify(pb)} asleep ${time.asleep("b")}; released ${released})`,
          },
        );
        const pending = events.filter((e) => !e.done);
        if (pa.done && pb.done && pending.length === 0) break;
        const wake = time.nextWake();
        const next = pending.sort((x, y) => x.at - y.at)[0];
        if (next && (wake === null || next.at <= wake)) {
          await time.advanceTo(next.at);
          next.done = true;
          await next.run();
        } else if (wake !== null) {
          await time.advanceTo(wake);
        }
      }
      await Promise.all([aRun, bRun]);
      await s.sandbox.admin.setFaults({});

      f.races++;
      const aWon = (aGot as ClaimAttempt | null)?.kind === "won";
      const bWon = (bGot as ClaimAttempt | null)?.kind === "won";
      if (aWon) f.aWon++;
      if (bWon) f.bWon++;
      if (!aWon && !bWon) f.neither++;
      if (bWon && closedAt !== null) f.bFinishedFirst++;
      if (bClaimedWhileAHeld) f.bWhileAHeld++;
      if (bClaimedWhileAHeld && aWon) f.lateWon++;
      const stagesA = aStage === "held";
      const stagesB = bStage === "held";
      f.stagesRun += Number(stagesA) + Number(stagesB);
      if (stagesA && stagesB) f.twoHosts++;
      if (stagesA && closedAt !== null) f.stagesOnClosed++;
      // Whoever stands last holds alone: at most one live claim on the issue.
      const thread = await s.tracker("alice").readIssueThread(n);
      assert.ok(thread);
    }

    const sorted = [...f.delays].sort((x, y) => x - y);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    console.log(
      [
        `late-write races (${FULL}, host A's claim write held 0-60 s of sandbox time, real HTTP through Octokit):`,
        `  races ${f.races}; delay min ${sorted[0]} ms, median ${pct(0.5)} ms, max ${sorted.at(-1)} ms`,
        `  A won ${f.aWon}, B won ${f.bWon}, neither ${f.neither}; B claimed while A's write was held ${f.bWhileAHeld}, A won any of those ${f.lateWon} (goal 0); B finished and closed the ticket before A's write landed ${f.bFinishedFirst}`,
        `  Stages run ${f.stagesRun}; tickets worked by two Hosts: ${f.twoHosts} (goal 0); Stages run on a closed ticket: ${f.stagesOnClosed} (goal 0)`,
      ].join("\n"),
    );
    assert.equal(f.races, RACES);
    assert.equal(f.twoHosts, 0, "a ticket worked by two Hosts");
    assert.equal(f.stagesOnClosed, 0, "a Stage run on a closed ticket");
    assert.equal(f.lateWon, 0, "a claim write that landed after a rival's won");
    assert.ok(f.bWhileAHeld > 0 && f.bFinishedFirst > 0, "the races reached the cases they are for");
    assert.equal(f.neither, 0, "every ticket is held by someone (or finished) at the end");
  });
});
