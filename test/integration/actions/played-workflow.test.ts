/**
 * The played workflow (ADR 0280): the YAML `init --actions` writes, read back and played against
 * the sandbox by workflow-player.ts. A dispatch starts N Host jobs (real `ticket-runner run`
 * processes, configured only by the workflow's own env and scripts); two schedule triggers arrive
 * while it runs (the workflow's `concurrency` keeps one pending, cancels the other); two Host jobs
 * are SIGKILLed mid-Stage, as a cancelled runner is. Later runs take the dead Hosts' expired leases
 * over (`takeover-stale`) and resume them. Every ticket ends exactly once, nothing is done twice,
 * no State file or live lease is left. Short leases come from ticket-runner.json, as a team would set them.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { parseComments } from "../../../src/core/claims/claim-view";
import { PROGRESS_MARKER } from "../../../src/core/run/progress-comment";
import { noLiveLease } from "../../reliability/chaos/kill-trial";
import { CLI } from "../../reliability/chaos/run-process";
import {
  auditPushes,
  checkEndings,
  checkLeases,
  checkLock,
  checkOpenPrs,
  duplicateWork,
  endingOf,
  stateFilesOn,
  viewTickets,
} from "../../reliability/chaos/observe";
import type { ChaosTarget } from "../../reliability/chaos/world";
import type { ChaosWorld } from "../../reliability/chaos/world";
import { simpleTicket } from "../../support/run-seed";
import { waitFor } from "../../support/wait-for";
import type { JobPlay } from "./workflow-player";
import type { WorkflowRun } from "./workflow-runs";
import type { WorkflowPlayer } from "./workflow-runs";
import { playedWorld } from "./played-world";

const exec = promisify(execFile);
const TICKETS = 8;
const HOSTS = 3;
const CONFIG = {
  lanes: 2,
  lockScope: "host",
  checks: [["node", "-e", "0"]],
  merge: { method: "squash" },
  ci: { pollSeconds: 1, graceMinutes: 1, timeoutMinutes: 10 },
  lease: { settleMs: 200, ttlMinutes: 0.25, heartbeatMinutes: 0.05 },
};

/** Tickets with a running lease of this Host id, inside a Stage. */
async function heldBy(world: ChaosWorld, t: ChaosTarget, hostId: string): Promise<number[]> {
  const views = await viewTickets(world, t);
  return views
    .filter((v) =>
      parseComments(v.comments, t.full, v.number).candidates.some((r) => r.lease?.host.id === hostId && r.lease.state === "running" && !!r.lease.stage),
    )
    .map((v) => v.number);
}

function describeJob(j: JobPlay): string {
  return `${j.label}${j.error ? ` (player error: ${j.error})` : ""}: ${j.results.map((r) => `${r.name} -> ${r.skipped ? "skipped" : (r.code ?? r.signal)}`).join("; ")}\n${j.results.at(-1)?.stderr.slice(-800) ?? ""}`;
}

describe("the played Actions workflow", function () {
  this.timeout(600_000);
  let world: ChaosWorld | null = null;
  let player: WorkflowPlayer | null = null;

  after(async () => {
    await player?.stopAll();
    await world?.stop();
  });

  it("kills Host jobs mid-Run, and every ticket still ends exactly once", async () => {
    const tickets = Array.from({ length: TICKETS }, (_, i) => simpleTicket(`played${"abcdefghij"[i]}`, ["slow:1500"]));
    const played = await playedWorld({ prefix: "tr-actions-play-", name: "played", tickets, config: CONFIG, ciDelayMs: 1000 });
    ({ world, player } = played);
    const { t, world: w, player: p } = played;
    const started = Date.now();

    const first = p.trigger({ event: "workflow_dispatch", inputs: { hosts: String(HOSTS), lanes: "2" } });
    const superseded = p.trigger({ event: "schedule" });
    const second = p.trigger({ event: "schedule" });
    assert.equal(first.status, "in_progress");
    assert.equal(superseded.status, "cancelled", "a newer pending run replaces an older one in the concurrency group");
    assert.equal(second.status, "pending", "a second trigger waits behind the first rather than doubling the Hosts");
    assert.equal(superseded.hosts.length, 0);

    await waitFor(() => first.hosts.length === HOSTS, { timeoutMs: 60_000, what: "the plan job to start the Host matrix" });
    // Host ids from the Runs' leases: each matrix job must be a Host of its own.
    const doomed = first.hosts.slice(0, 2);
    const held = new Map<string, number[]>();
    for (const job of doomed) {
      const id = `cloud-${first.id}-1-${job.label.replace("host-", "")}`;
      const inStage = waitFor(
        async () => {
          const n = await heldBy(w, t, id);
          return n.length ? n : null;
        },
        { timeoutMs: 180_000, intervalMs: 300, what: `${job.label} (${id}) to be inside a Stage` },
      );
      const ended = job.done.then(() => Promise.reject(new Error(`${describeJob(job)}\nended before it held a ticket in a Stage`)));
      held.set(job.label, await Promise.race([inStage, ended]));
      await job.kill();
    }
    assert.equal(await doomed[0]!.done, "cancelled");
    await first.finished;
    const survivor = first.hosts[2]!;
    assert.equal(await survivor.done, "success", describeJob(survivor));
    assert.match(survivor.results.at(-1)!.summary, /^\| \[#\d+\]\(.*\| merged \|/m, "the surviving Host wrote its summary table to GITHUB_STEP_SUMMARY");
    assert.deepEqual(p.events.slice(0, 4), [
      `${first.id} in_progress`,
      `${superseded.id} pending`,
      `${superseded.id} cancelled (superseded by ${second.id} in group ticket-runner)`,
      `${second.id} pending`,
    ]);
    assert.ok(p.events.indexOf(`${second.id} in_progress`) > p.events.indexOf(`${first.id} completed`), p.events.join("\n"));

    // Later scheduled runs, each once the dead Hosts' leases have expired, until every ticket ended.
    const runs: WorkflowRun[] = [first, second];
    for (;;) {
      await runs.at(-1)!.finished;
      for (const job of runs.at(-1)!.hosts) assert.equal(await job.done, "success", describeJob(job));
      const views = await viewTickets(w, t);
      if (views.every((v) => endingOf(v) !== "unfinished") || runs.length >= 6) break;
      await waitFor(async () => noLiveLease(t, await viewTickets(w, t)), { timeoutMs: 120_000, intervalMs: 1_000, what: "the dead Hosts' leases to expire" });
      runs.push(p.trigger({ event: "schedule" }));
    }
    const wallMs = Date.now() - started;

    const views = await viewTickets(w, t);
    assert.deepEqual(checkEndings(views), []);
    assert.ok(
      views.every((v) => endingOf(v) === "merged"),
      // A ticket that did not merge says why: its hand-off or release comment, in the failure.
      [
        views.map((v) => `#${v.number} ${endingOf(v)}`).join(", "),
        ...views.filter((v) => endingOf(v) !== "merged").flatMap((v) => v.comments.slice(-3).map((c) => `#${v.number} (${c.author}): ${c.body.slice(0, 800)}`)),
      ].join("\n"),
    );
    const progress = views.flatMap((v) => v.comments.filter((c) => c.body.startsWith(PROGRESS_MARKER)));
    assert.ok(
      progress.length >= TICKETS && progress.every((c) => c.author === "ticket-runner-app[bot]"),
      "the Runs wrote as the App's installation, not as a user",
    );
    assert.equal(duplicateWork(views), 0, "no ticket implemented twice or given two pull requests");
    assert.deepEqual(checkOpenPrs(views), []);
    assert.deepEqual(await stateFilesOn(t.gitDir), [], "no State file left");
    assert.deepEqual(checkLeases(t, views), []);
    // A killed job's per-Host lock file stays held: its session never comes back. It blocks no
    // lockScope "host" Run; docs/actions.md gives the command that frees it, played here.
    const killedLocks = doomed.map((j) => `lock-cloud-${first.id}-1-${j.label.replace("host-", "")}.json`);
    assert.deepEqual((await checkLock(t)).map((l) => l.split(" ")[0]).sort(), killedLocks);
    for (const j of doomed) {
      const env = { ...p.machineEnv, TICKET_RUNNER_TOKEN: t.token, TICKET_RUNNER_HOST_SESSION: `${first.id}-1-${j.label.replace("host-", "")}` };
      await exec(process.execPath, [CLI, "unlock", "--scope", "host", "--yes"], { cwd: `${w.dir}/run-${first.id}/${survivor.label}/work`, env });
    }
    assert.deepEqual(await checkLock(t), []);
    assert.deepEqual((await auditPushes(w, t)).lost, []);

    // Each ticket a dead Host held went to a later Host by takeover-stale.
    let takeovers = 0;
    for (const [label, numbers] of held) {
      for (const n of numbers) {
        const recs = parseComments(views.find((v) => v.number === n)!.comments, t.full, n).candidates;
        const dead = recs.find((r) => r.lease?.host.id === `cloud-${first.id}-1-${label.replace("host-", "")}`);
        const taker = recs.find((r) => r.lease?.takeover?.from === dead?.lease?.nonce);
        assert.equal(taker?.lease?.takeover?.kind, "takeover-stale", `#${n}, held by the killed ${label}, was taken over after its lease expired`);
        takeovers += 1;
      }
    }
    const figures = `${TICKETS} tickets, ${HOSTS} Hosts × 2 Lanes, 2 killed; ${runs.length} workflow runs; ${takeovers} takeover-stale; ${((TICKETS * 60_000) / wallMs).toFixed(1)} tickets/min over ${(wallMs / 1000).toFixed(0)} s (kills and lease expiry included)`;
    console.log(`      played workflow: ${figures}`);
  });
});
