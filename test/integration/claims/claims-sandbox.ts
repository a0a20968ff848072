/**
 * The claims suites' one set-up: a sandbox with one repository, a few users, the labels, and
 * helpers to make issues, clones and real claimers (real Octokit, real run roots on disk) that play
 * separate Hosts. A suite calls `useClaimsSandbox()` inside its `describe`.
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
import { cloneWithToken } from "../../support/run-seed";
import { writeTargetConfig } from "./cli-process";

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

/** What a test uses of a claims sandbox. */
export interface ClaimsTarget {
  sandbox: SandboxHandle;
  tokens: Record<string, string>;
  dir: string;
  log: CollectLog;
  client(user: string): GitHubClient;
  tracker(user: string): OctokitTracker;
  /** A new issue, labelled by `by` (a writer unless a test says otherwise). */
  issue(title: string, labels?: string[], by?: string): Promise<number>;
  claimer(o: ClaimerOptions): { gate: ClaimProtocol; root: FsRunRoot; tracker: OctokitTracker };
}

export interface ClaimerOptions {
  user: string;
  host: string;
  holder?: "person" | "machine";
  root?: string;
  settleMs?: number;
  clock?: Clock;
  hostLabels?: boolean;
}

export interface ClaimsSandbox extends ClaimsTarget {
  stop(): Promise<void>;
}

/** A suite's claims sandbox: its members are there inside a test or a later hook. */
export interface ClaimsSuite extends ClaimsTarget {
  /** Clones the repository as `user` into `<dir>/<folder>` with an untracked ticket-runner.json of `config`; its path. */
  clone(user: string, folder: string, config: object): Promise<string>;
}

type Users = Record<string, "admin" | "write" | "read">;

export async function startClaimsSandbox(users: Users = { alice: "write", bob: "write", mallory: "read" }): Promise<ClaimsSandbox> {
  const sandbox = await startSandbox({ quiet: true });
  await sandbox.admin.createRepo({ owner: OWNER, name: NAME, files: { "README.md": "# widgets\n" } });
  const tokens: Record<string, string> = {};
  for (const [login, role] of Object.entries(users)) tokens[login] = (await sandbox.admin.addUser({ login, repos: { [FULL]: role } })).token;
  const dir = mkdtempSync(join(tmpdir(), "tr-claims-it-"));
  const log = new CollectLog();
  const client = (user: string) => createOctokit({ apiUrl: sandbox.apiUrl, token: tokens[user] ?? sandbox.adminToken, log, retryBaseMs: 20 });
  const admin = client("sandbox-admin");
  for (const [name, color] of [
    [LABELS.ready, "0e8a16"],
    [LABELS.inProgress, "fbca04"],
    [LABELS.human, "d93f0b"],
  ] as const) {
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

/**
 * Call inside a `describe`: starts the claims sandbox (with `users`, or alice, bob and a reader,
 * mallory) before the suite and stops it, its folder removed, after it. `clearFaults` clears the
 * sandbox's faults after each test, for suites whose tests set their own.
 */
export function useClaimsSandbox(o: { users?: Users; clearFaults?: boolean } = {}): ClaimsSuite {
  let s: ClaimsSandbox | undefined;
  const started = (): ClaimsSandbox => {
    if (!s) throw new Error("the claims sandbox is not there: use it inside a test, or a hook after useClaimsSandbox's");
    return s;
  };
  before(async () => {
    s = await startClaimsSandbox(o.users);
  });
  if (o.clearFaults) afterEach(async () => s?.sandbox.admin.setFaults({}));
  after(async () => {
    await s?.stop();
    s = undefined;
  });
  return {
    get sandbox() {
      return started().sandbox;
    },
    get tokens() {
      return started().tokens;
    },
    get dir() {
      return started().dir;
    },
    get log() {
      return started().log;
    },
    client: (user) => started().client(user),
    tracker: (user) => started().tracker(user),
    issue: (title, labels, by) => started().issue(title, labels, by),
    claimer: (c) => started().claimer(c),
    async clone(user, folder, config) {
      const into = join(started().dir, folder);
      await cloneWithToken(started().sandbox.gitUrl(OWNER, NAME), started().tokens[user]!, into);
      writeTargetConfig(into, config);
      return into;
    },
  };
}
