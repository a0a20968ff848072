/**
 * A chaos world: the sandbox (with a data dir, so its bare repositories are where we can watch
 * them), one Target per trial seeded with the 6-ticket demo project, and Hosts that are clones of
 * it, each with its own run root and Host id, driving the real `node dist/cli.js run`.
 *
 * Every ref update on the Target's remote is recorded by a git `reference-transaction` hook, so
 * every commit ever pushed to an `agent/*` branch is known even if a later push or delete hides it
 * (unless the Target is made with `recordRefUpdates: false`).
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { Octokit } from "@octokit/rest";
import { DEMO_CI_COMMAND, DEMO_FILES, DEMO_ISSUES, type DemoIssue } from "../../../src/sandbox/seeds/demo-project";
import { startSandbox, type SandboxHandle } from "../../../src/sandbox/start";
import { makeTempDir } from "../../support/git-fixtures";

const exec = promisify(execFile);
export const LABELS = [
  { name: "ready-for-agent", color: "0e8a16" },
  { name: "in-progress", color: "fbca04" },
  { name: "ready-for-human", color: "d93f0b" },
];
export const USER = "runner-bot";

const GIT_ENV = {
  ...process.env,
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "Chaos",
  GIT_AUTHOR_EMAIL: "chaos@example.invalid",
  GIT_COMMITTER_NAME: "Chaos",
  GIT_COMMITTER_EMAIL: "chaos@example.invalid",
};

export async function gitOut(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await exec("git", args, { cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

export async function gitOk(cwd: string, args: string[]): Promise<boolean> {
  return exec("git", args, { cwd, env: GIT_ENV }).then(
    () => true,
    () => false,
  );
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export interface HostSpec {
  name: string;
  clone: string;
  runRoot: string;
  /** The environment `ticket-runner run` gets on this Host (token included). */
  env: Record<string, string>;
}

export interface TargetOptions {
  owner?: string;
  name: string;
  /** Overrides merged into the demo's ticket-runner.json. */
  config?: Record<string, unknown>;
  issues?: DemoIssue[];
  /** Run the sandbox's CI on pull requests (default true, like the demo). */
  ci?: boolean;
  /** The Target's user token: defaults to a new user with write access. */
  token?: string;
  /**
   * Install the `reference-transaction` hook that records every ref update (default true: the
   * trials' push audit reads it). A bench that never reads it leaves it out, as GitHub runs no hook
   * of a user's: with one, each of the sandbox's own ref writes (a merge, `refs/pull/N/head`) is a
   * `git update-ref` starting the hook twice, not a write in the sandbox's process (ref-updates.ts).
   */
  recordRefUpdates?: boolean;
}

export interface ChaosTarget {
  owner: string;
  name: string;
  full: string;
  gitDir: string;
  pushLog: string;
  /** Whether pushLog is written (TargetOptions.recordRefUpdates). */
  recordsRefUpdates: boolean;
  /** The Target's bot user (one for every Host). */
  login: string;
  token: string;
  octokit: Octokit;
  issueNumbers: number[];
}

export class ChaosWorld {
  private constructor(
    public sandbox: SandboxHandle,
    readonly dir: string,
    public adminOctokit: Octokit,
  ) {}

  /**
   * Stops the sandbox, gives the named users the tokens asked for (a canary no redaction pattern
   * knows, say) by editing its saved state, and starts it again on the same data. The API URL
   * changes: make clones after this.
   */
  async restartWithTokens(tokens: Record<string, string>): Promise<void> {
    await this.sandbox.stop();
    const file = join(this.dir, "sandbox", "state.json");
    const state = JSON.parse(readFileSync(file, "utf8")) as { users: Record<string, { token: string }> };
    for (const [login, token] of Object.entries(tokens)) {
      const user = state.users[login];
      if (!user) throw new Error(`no sandbox user ${login}`);
      user.token = token;
    }
    writeFileSync(file, JSON.stringify(state));
    this.sandbox = await startSandbox({ dataDir: join(this.dir, "sandbox"), quiet: true });
    this.adminOctokit = new Octokit({ baseUrl: this.sandbox.apiUrl, auth: this.sandbox.adminToken, log: quiet });
  }

  static async start(prefix = "tr-chaos-"): Promise<ChaosWorld> {
    const dir = await makeTempDir(prefix);
    const sandbox = await startSandbox({ dataDir: join(dir, "sandbox"), quiet: true });
    return new ChaosWorld(sandbox, dir, new Octokit({ baseUrl: sandbox.apiUrl, auth: sandbox.adminToken, log: quiet }));
  }

  octokit(token: string): Octokit {
    return new Octokit({ baseUrl: this.sandbox.apiUrl, auth: token, log: quiet });
  }

  /** A new user with `role` on `full`; its token. */
  async user(login: string, full: string, role: "admin" | "write" | "read" = "write"): Promise<string> {
    return (await this.sandbox.admin.addUser({ login, repos: { [full]: role } })).token;
  }

  async target(o: TargetOptions): Promise<ChaosTarget> {
    const owner = o.owner ?? "chaos";
    const full = `${owner}/${o.name}`;
    const demoConfig = JSON.parse(DEMO_FILES["ticket-runner.json"]!) as Record<string, unknown>;
    const config = deepMerge(demoConfig, o.config ?? {});
    const files = { ...DEMO_FILES, "ticket-runner.json": `${JSON.stringify(config, null, 2)}\n` };
    await this.sandbox.admin.createRepo({ owner, name: o.name, files, ciCommand: o.ci === false ? null : DEMO_CI_COMMAND, labels: LABELS });
    const gitDir = join(this.dir, "sandbox", "repos", owner.toLowerCase(), `${o.name.toLowerCase()}.git`);
    const pushLog = join(this.dir, `${o.name}.pushlog`);
    writeFileSync(pushLog, "");
    // Records every committed ref update (pushes, API ref writes, merges, deletes): "<old> <new> <ref>".
    const recordsRefUpdates = o.recordRefUpdates ?? true;
    if (recordsRefUpdates) {
      const hook = join(gitDir, "hooks", "reference-transaction");
      mkdirSync(join(gitDir, "hooks"), { recursive: true });
      writeFileSync(hook, `#!/bin/sh\n[ "$1" = committed ] || exit 0\ncat >> '${pushLog}'\n`);
      chmodSync(hook, 0o755);
    }
    const login = `${USER}-${o.name}`.slice(0, 39);
    const token = o.token ?? (await this.user(login, full));
    const octokit = this.octokit(token);
    const issueNumbers: number[] = [];
    for (const issue of o.issues ?? DEMO_ISSUES) {
      // Opened and labelled by the admin (a writer), as a person preparing the board would.
      const res = await this.adminOctokit.rest.issues.create({ owner, repo: o.name, title: issue.title, body: issue.body, labels: issue.labels });
      issueNumbers.push(res.data.number);
    }
    return { owner, name: o.name, full, gitDir, pushLog, recordsRefUpdates, login, token, octokit, issueNumbers };
  }

  /** A clone of the Target playing one Host: own directory, run root and Host id. */
  async host(t: ChaosTarget, name: string, extraEnv: Record<string, string> = {}): Promise<HostSpec> {
    const clone = join(this.dir, `${t.name}-${name}`);
    const header = `Authorization: Basic ${Buffer.from(`x-access-token:${t.token}`).toString("base64")}`;
    await exec("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", this.sandbox.gitUrl(t.owner, t.name), clone], { env: GIT_ENV });
    const runRoot = join(this.dir, `${t.name}-${name}-runs`);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? this.dir,
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      TICKET_RUNNER_TOKEN: t.token,
      TICKET_RUNNER_RUN_ROOT: runRoot,
      TICKET_RUNNER_HOST_SESSION: `${t.name}-${name}`,
      TICKET_RUNNER_HOST_NAME: name,
      // Both Hosts share the demo agent's memory, as one agent service would.
      TICKET_RUNNER_DEMO_STATE: join(this.dir, `${t.name}-demo-state`),
      TICKET_RUNNER_TTY: "0",
      ...extraEnv,
    };
    return { name, clone, runRoot, env };
  }

  /** Every "<old> <new> <ref>" the remote committed, in order. */
  refUpdates(t: ChaosTarget): { before: string; after: string; ref: string }[] {
    // An empty list would read as "nothing was pushed".
    if (!t.recordsRefUpdates) throw new Error(`${t.full} was made with recordRefUpdates: false: its ref updates were not recorded`);
    const zero = /^0+$/;
    return readFileSync(t.pushLog, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => {
        const [before = "", after = "", ref = ""] = l.trim().split(/\s+/);
        return { before: zero.test(before) ? "" : before, after: zero.test(after) ? "" : after, ref };
      });
  }

  async stop(): Promise<void> {
    await this.sandbox.stop();
    await rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && prev && typeof prev === "object" && !Array.isArray(prev)
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}
