/**
 * What the board costs GitHub, against the sandbox with 1,000 open tickets:
 *   requests per refresh: this board (one GraphQL query per 100 tickets, plus one per claimed
 *     ticket whose lease is older than its last comments: the goal, ADR 0061) vs the naive REST way
 *     (the issues list, paged, plus one comment list per issue), both counted in the sandbox's own request log;
 *   rate-limit points spent by 10 idle polls (conditional requests; the goal is 0);
 *   time to build the board model from the fetched data (median of many builds).
 *
 *   npm run bench:board -- [--issues 1000] [--claimed 100] [--chatty 5]
 */
import { performance } from "node:perf_hooks";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { FsRunRoot } from "../src/adapters/fs-run-root";
import { createGitHubBoard } from "../src/adapters/github/board-wiring";
import { NodeClock } from "../src/adapters/node-clock";
import { NodeHost } from "../src/adapters/node-host";
import { buildBoard } from "../src/core/board/build";
import { renderLeaseComment } from "../src/core/claims/lease-comment";
import { LEASE_VERSION } from "../src/core/schemas/lease";
import { startSandbox } from "../src/sandbox/start";
import { benchTarget } from "./support/bench-target";
import { sandboxOctokit } from "../test/support/board-seed";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v >= 0 ? v : fallback;
}

const ISSUES = arg("--issues", 1000);
const CLAIMED = Math.min(arg("--claimed", 100), ISSUES);
const CHATTY = Math.min(arg("--chatty", 5), CLAIMED);
const OWNER = "bench";
const REPO = "big";
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ quiet: true });
  const runRoot = mkdtempSync(join(tmpdir(), "bench-board-"));
  try {
    const { ana: token } = await benchTarget(sandbox.admin, {
      owner: OWNER,
      repo: REPO,
      users: ["ana"],
      labels: ["ready-for-agent", "in-progress", "ready-for-human"],
    });
    const admin = sandboxOctokit(sandbox.apiUrl, sandbox.adminToken);
    const ana = sandboxOctokit(sandbox.apiUrl, token);
    const host = new NodeHost({ env: process.env });
    const laptop = { id: "ws-bench-laptop", name: "laptop", kind: "workstation" as const };

    const seedStart = performance.now();
    const numbers = Array.from({ length: ISSUES }, (_, i) => i + 1);
    // Every step-th ticket is claimed (a lease by another Host); a few of those have long threads.
    const step = CLAIMED > 0 ? Math.max(1, Math.floor(ISSUES / CLAIMED)) : Infinity;
    const claimedNumbers = numbers.filter((n) => n % step === 0).slice(0, CLAIMED);
    const claimedSet = new Set(claimedNumbers);
    // Created one by one so issue numbers follow the loop.
    for (const n of numbers) {
      const claimed = claimedSet.has(n);
      await admin.rest.issues.create({
        owner: OWNER,
        repo: REPO,
        title: `Ticket ${n}: something to build`,
        labels: [claimed ? "in-progress" : "ready-for-agent"],
        assignees: claimed ? ["ana"] : [],
      });
    }
    await pool(claimedNumbers, 8, async (n) => {
      const now = Date.now();
      const lease = {
        version: LEASE_VERSION,
        repo: `${OWNER}/${REPO}`,
        issue: n,
        host: laptop,
        session: `s-${n}`,
        run: `r-${n}`,
        holder: "machine" as const,
        user: "ana",
        claimedAt: new Date(now - 600_000).toISOString(),
        expiresAt: new Date(now + 1_800_000).toISOString(),
        nonce: randomBytes(8).toString("hex"),
        state: "running" as const,
        stage: "implement",
      };
      await ana.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: n, body: renderLeaseComment(lease) });
    });
    // Long threads: the lease is older than the last 10 comments on these.
    await pool(claimedNumbers.slice(0, CHATTY), 4, async (n) => {
      for (let i = 0; i < 12; i++) await ana.rest.issues.createComment({ owner: OWNER, repo: REPO, issue_number: n, body: `progress note ${i}` });
    });
    const seedMs = performance.now() - seedStart;

    const board = createGitHubBoard({
      octokit: ana,
      repo: { owner: OWNER, repo: REPO },
      host,
      runRoot: new FsRunRoot(runRoot),
      labels: { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" },
      clock: new NodeClock(),
      log: silent,
    });
    const byAna = async (): Promise<{ method: string; path: string; status: number }[]> => (await sandbox.admin.requestLog()).filter((r) => r.user === "ana");

    // This board: a cold refresh (permissions not cached yet), then a warm one.
    await sandbox.admin.clearRequestLog();
    let t = performance.now();
    const cold = await board.loader.load();
    const coldMs = performance.now() - t;
    const coldRequests = (await byAna()).length;
    await sandbox.admin.clearRequestLog();
    t = performance.now();
    const warm = await board.loader.load();
    const warmMs = performance.now() - t;
    const warmLog = await byAna();
    const warmGraphql = warmLog.filter((r) => r.path === "/graphql").length;

    // The naive REST way: the issues list (paged by 100) and one comment list per issue.
    await sandbox.admin.clearRequestLog();
    t = performance.now();
    const listed: number[] = [];
    let pages = 0;
    for (let page = 1; ; page++) {
      const res = await ana.rest.issues.listForRepo({ owner: OWNER, repo: REPO, state: "open", per_page: 100, page });
      pages += 1;
      listed.push(...res.data.map((i) => i.number));
      if (!/rel="next"/.test(res.headers.link ?? "")) break;
    }
    await pool(listed, 8, async (n) => {
      await ana.rest.issues.listComments({ owner: OWNER, repo: REPO, issue_number: n, per_page: 100 });
    });
    const naiveMs = performance.now() - t;
    const naiveRequests = (await byAna()).length;

    // Idle: prime the poller, then 10 polls with nothing changing.
    await board.refresher.tick();
    await board.refresher.tick();
    const usedBefore = board.poller.lastRate?.used ?? NaN;
    await sandbox.admin.clearRequestLog();
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) outcomes.push(await board.refresher.tick());
    const idleLog = await byAna();
    const usedAfter = board.poller.lastRate?.used ?? NaN;
    const notModified = idleLog.filter((r) => r.status === 304).length;

    // Building the model from what was fetched.
    const builds: number[] = [];
    for (let i = 0; i < 30; i++) {
      const s = performance.now();
      buildBoard({ ...warm.input, now: new Date() });
      builds.push(performance.now() - s);
    }
    const model = buildBoard(warm.input);

    const ratio = naiveRequests / warmLog.length;
    // ADR 0061: one request per 100 issues, and one more for each held issue whose lease is older than its last comments.
    const refreshGoal = Math.ceil(ISSUES / 100) + CHATTY;
    console.log(
      `board bench: ${ISSUES} open tickets (${CLAIMED} claimed, ${CHATTY} with the lease older than the last 10 comments) on the sandbox; seeded in ${(seedMs / 1000).toFixed(1)} s`,
    );
    console.log(`  board rows built: ${model.total} (${model.sections.map((s) => `${s.title} ${s.count}`).join(", ")})`);
    console.log("");
    console.log("  requests per refresh");
    console.log(
      `    this board, warm:   ${String(warmLog.length).padStart(5)}  (${warmGraphql} GraphQL: ${warmGraphql - warm.cost.extraComments} pages of 100 + ${warm.cost.extraComments} issues whose lease is older; ${warm.cost.permissionChecks} permission checks; ${warm.cost.points ?? "?"} points; goal ≤ ${refreshGoal})  ${warmMs.toFixed(0)} ms`,
    );
    console.log(
      `    this board, cold:   ${String(coldRequests).padStart(5)}  (+${cold.cost.permissionChecks} permission check for the lease author, cached afterwards)  ${coldMs.toFixed(0)} ms`,
    );
    console.log(
      `    naive REST:         ${String(naiveRequests).padStart(5)}  (${pages} list pages + ${listed.length} comment lists)  ${naiveMs.toFixed(0)} ms`,
    );
    console.log(`    ratio naive / board: ${ratio.toFixed(1)}x fewer requests`);
    console.log("");
    console.log("  10 idle polls");
    console.log(`    requests: ${idleLog.length} (${notModified} answered 304 Not Modified), outcomes: ${[...new Set(outcomes)].join(", ")}`);
    console.log(`    rate-limit points spent: ${usedAfter - usedBefore} (x-ratelimit-used ${usedBefore} -> ${usedAfter}; goal 0)`);
    console.log(`    naive way, for comparison: every poll is a full refresh = ${naiveRequests * 10} points`);
    console.log("");
    console.log(
      `  model build from fetched data: median ${median(builds).toFixed(2)} ms, max ${Math.max(...builds).toFixed(2)} ms over ${builds.length} builds of ${ISSUES} issues`,
    );
    const missed = [
      warmLog.length > refreshGoal ? `a refresh took ${warmLog.length} requests, over ${refreshGoal}` : "",
      usedAfter - usedBefore !== 0 ? `10 idle polls spent ${usedAfter - usedBefore} rate-limit points` : "",
    ].filter(Boolean);
    if (missed.length > 0) {
      console.log(`MISSED: ${missed.join("; ")}`);
      process.exitCode = 1;
    }
  } finally {
    await sandbox.stop();
    rmSync(runRoot, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
