/**
 * Shared set-up for the claims integration tests and bench: a sandbox with one repository, a few
 * users, the labels, and helpers to make issues and to build real claimers (real Octokit, real
 * run roots on disk) that play separate Hosts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { createOctokit, type GitHubClient } from "../../../src/adapters/github/client";
import { OctokitTracker } from "../../../src/adapters/github/octokit-tracker";
import { createClaimGate, type ClaimProtocol } from "../../../src/core/claims/claim-protocol";
import type { Clock } from "../../../src/ports/clock";
import type { Log, LogFields } from "../../../src/ports/log";
import { startSandbox, type SandboxHandle } from "../../../src/sandbox/start";

export const OWNER = "acme";
export const NAME = "widgets";
export const FULL = `${OWNER}/${NAME}`;
export const LABELS = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human", hostLabels: true };

export const realClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    }),
};

export class CollectLog implements Log {
  lines: string[] = [];
  private add(level: string, message: string, fields?: LogFields): void {
    this.lines.push(`${level} ${message} ${fields ? JSON.stringify(fields) : ""}`);
  }
  debug(m: string, f?: LogFields): void {
    this.add("debug", m, f);
  }
  info(m: string, f?: LogFields): void {
    this.add("info", m, f);
  }
  warn(m: string, f?: LogFields): void {
    this.add("warn", m, f);
  }
  error(m: string, f?: LogFields): void {
    this.add("error", m, f);
  }
  has(text: string): boolean {
    return this.lines.some((l) => l.includes(text));
  }
}

export interface ClaimsSandbox {
  sandbox: SandboxHandle;
  tokens: Record<string, string>;
  dir: string;
  log: CollectLog;
  client(user: string): GitHubClient;
  tracker(user: string): OctokitTracker;
  /** A new issue, labelled by `by` (a writer unless a test says otherwise). */
  issue(title: string, labels?: string[], by?: string): Promise<number>;
  claimer(o: { user: string; host: string; holder?: "person" | "machine"; root?: string; settleMs?: number; clock?: Clock; hostLabels?: boolean }): { gate: ClaimProtocol; root: FsRunRoot; tracker: OctokitTracker };
  stop(): Promise<void>;
}

export async function startClaimsSandbox(users: Record<string, "admin" | "write" | "read"> = { alice: "write", bob: "write", mallory: "read" }): Promise<ClaimsSandbox> {
  const sandbox = await startSandbox({ quiet: true });
  await sandbox.admin.createRepo({ owner: OWNER, name: NAME, files: { "README.md": "# widgets\n" } });
  const tokens: Record<string, string> = {};
  for (const [login, role] of Object.entries(users)) tokens[login] = (await sandbox.admin.addUser({ login, repos: { [FULL]: role } })).token;
  const dir = mkdtempSync(join(tmpdir(), "tr-claims-it-"));
  const log = new CollectLog();
  const client = (user: string) => createOctokit({ apiUrl: sandbox.apiUrl, token: tokens[user] ?? sandbox.adminToken, log, retryBaseMs: 20 });
  const admin = client("sandbox-admin");
  for (const [name, color] of [[LABELS.ready, "0e8a16"], [LABELS.inProgress, "fbca04"], [LABELS.human, "d93f0b"]] as const) {
    await admin.request("POST /repos/{owner}/{repo}/labels", { owner: OWNER, repo: NAME, name, color });
  }
  return {
    sandbox,
    tokens,
    dir,
    log,
    client,
    tracker: (user) => new OctokitTracker(client(user), { owner: OWNER, repo: NAME }),
    async issue(title, labels = [LABELS.ready], by = "alice") {
      const res = await client(by).request("POST /repos/{owner}/{repo}/issues", { owner: OWNER, repo: NAME, title, body: "", labels });
      return (res.data as { number: number }).number;
    },
    claimer(o) {
      const tracker = new OctokitTracker(client(o.user), { owner: OWNER, repo: NAME });
      const root = new FsRunRoot(o.root ?? join(dir, `root-${o.host}`));
      const gate = createClaimGate({
        tracker,
        runRoot: root,
        host: { id: `cloud-${o.host}`, name: o.host, kind: "cloud" },
        clock: o.clock ?? realClock,
        log,
        labels: { ...LABELS, hostLabels: o.hostLabels ?? LABELS.hostLabels },
        lease: { ttlMinutes: 45, heartbeatMinutes: 30, settleMs: o.settleMs ?? 300 },
        holder: o.holder ?? "machine",
        runId: `run-${o.host}`,
        pid: process.pid,
        isAlive: async () => false,
      });
      return { gate, root, tracker };
    },
    async stop() {
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
