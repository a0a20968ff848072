/**
 * A whole Run against the sandbox: a Target seeded with the demo project, tickets with demo
 * blocks, and `ticket-runner run` as a real child process (dist/cli.js) in a real clone, with
 * real signals. Nothing here sleeps: every wait polls a condition with a deadline.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Octokit } from "@octokit/rest";
import { stateRecordRef } from "../../../src/core/schemas/state-file";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import type { SandboxHandle } from "../../../src/sandbox/start";
import { CLI_BUNDLE, sandboxProcess } from "../../support/sandbox-process";
import { makeTempDir } from "../../support/git-fixtures";
import { sandboxOctokit } from "../../support/board-seed";
import { cloneWithToken, openTickets, seedRunTarget, simpleTicket } from "../../support/run-seed";
import type { DemoTicket, RunTarget } from "../../support/run-seed";
import { waitFor } from "../../support/wait-for";

export const CLI = CLI_BUNDLE;

export interface RunProcess {
  child: ChildProcess;
  out: string[];
  err: string[];
  exited: Promise<number | null>;
}

export interface HostEnv {
  /** This Host's run root (local claims). */
  runRoot: string;
  env: Record<string, string>;
}

export class RunWorld {
  sandbox!: SandboxHandle;
  target!: RunTarget;
  scratch!: string;
  octokit!: Octokit;
  hostA!: HostEnv;
  private readonly children: ChildProcess[] = [];

  static async make(config: Record<string, unknown> = {}): Promise<RunWorld> {
    const w = new RunWorld();
    w.sandbox = await sandboxProcess();
    w.scratch = await makeTempDir("tr-run-it-");
    // One Lane unless a test asks for more: most tests here follow one ticket at a time.
    w.target = await seedRunTarget(w.sandbox, w.scratch, { lanes: 1, ...config });
    w.octokit = sandboxOctokit(w.sandbox.apiUrl, w.sandbox.adminToken);
    w.hostA = w.hostEnv("a", {});
    return w;
  }

  hostEnv(name: string, extra: Record<string, string>): HostEnv {
    const runRoot = join(this.scratch, `runs-${name}`);
    mkdirSync(runRoot, { recursive: true });
    return {
      runRoot,
      env: {
        TICKET_RUNNER_TOKEN: this.target.userToken,
        TICKET_RUNNER_RUN_ROOT: runRoot,
        TICKET_RUNNER_HOST_NAME: name,
        TICKET_RUNNER_TTY: "0",
        TICKET_RUNNER_LOG: "info",
        ...extra,
      },
    };
  }

  async tickets(list: DemoTicket[], labels?: string[]): Promise<number[]> {
    return openTickets(this.target, list, labels);
  }

  ticket(name: string, behaviours: string[] = []): DemoTicket {
    return simpleTicket(name, behaviours);
  }

  /**
   * Starts `ticket-runner <args>` in `cwd` as its own process (group leader, so a kill reaches only it).
   * With `tty`, it runs on a pseudo-terminal under util-linux `script`, as in a person's terminal:
   * stdout and stderr then arrive together in `out`, with the terminal's control sequences.
   */
  cli(args: string[], opts: { cwd?: string; host?: HostEnv; tty?: boolean } = {}): RunProcess {
    const host = opts.host ?? this.hostA;
    const baseEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && !k.startsWith("TICKET_RUNNER_") && !["GITHUB_TOKEN", "GH_TOKEN"].includes(k)) baseEnv[k] = v;
    }
    const argv = [process.execPath, CLI, ...args];
    const quoted = argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const [file, fileArgs] = opts.tty ? ["script", ["-qfec", quoted, "/dev/null"]] : [argv[0]!, argv.slice(1)];
    const child = spawn(file, fileArgs, {
      cwd: opts.cwd ?? this.target.clone,
      env: { ...baseEnv, LC_ALL: "C", ...host.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.children.push(child);
    const out: string[] = [];
    const err: string[] = [];
    const lines = (sink: string[]) => {
      let rest = "";
      return (chunk: Buffer) => {
        const text = rest + chunk.toString("utf8");
        const parts = text.split("\n");
        rest = parts.pop() ?? "";
        sink.push(...parts);
      };
    };
    child.stdout!.on("data", lines(out));
    child.stderr!.on("data", lines(err));
    const exited = new Promise<number | null>((res) => child.on("close", (code) => res(code)));
    return { child, out, err, exited };
  }

  /** A whole command, awaited, with a deadline. */
  async cliDone(
    args: string[],
    opts: { cwd?: string; host?: HostEnv; timeoutMs?: number } = {},
  ): Promise<{ code: number | null; out: string[]; err: string[] }> {
    const p = this.cli(args, opts);
    const code = await Promise.race([
      p.exited,
      new Promise<never>((_, reject) =>
        setTimeout(
          () =>
            reject(
              new Error(
                `ticket-runner ${args.join(" ")} did not end within ${opts.timeoutMs ?? 90_000} ms\nstdout:\n${p.out.join("\n")}\nstderr:\n${p.err.join("\n")}`,
              ),
            ),
          opts.timeoutMs ?? 90_000,
        ).unref(),
      ),
    ]);
    return { code, out: p.out, err: p.err };
  }

  async issue(n: number) {
    const { data } = await this.octokit.rest.issues.get({ owner: this.target.owner, repo: this.target.repo, issue_number: n });
    return {
      ...data,
      labelNames: data.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).sort(),
      assigneeLogins: (data.assignees ?? []).map((a) => a.login),
    };
  }

  async comments(n: number): Promise<{ id: number; body: string }[]> {
    const { data } = await this.octokit.rest.issues.listComments({ owner: this.target.owner, repo: this.target.repo, issue_number: n, per_page: 100 });
    return data.map((c) => ({ id: c.id, body: c.body ?? "" }));
  }

  async pulls() {
    const { data } = await this.octokit.rest.pulls.list({ owner: this.target.owner, repo: this.target.repo, state: "all", per_page: 100 });
    return data;
  }

  async repoSettings() {
    return (await this.octokit.rest.repos.get({ owner: this.target.owner, repo: this.target.repo })).data;
  }

  /** The remote's branch names, over the REST API. */
  async branches(): Promise<string[]> {
    const { data } = await this.octokit.rest.repos.listBranches({ owner: this.target.owner, repo: this.target.repo, per_page: 100 });
    return data.map((b) => b.name).sort();
  }

  /** Names in a directory of a ref, or null when there is none. */
  async listDir(ref: string, path: string): Promise<string[] | null> {
    try {
      const { data } = await this.octokit.rest.repos.getContent({ owner: this.target.owner, repo: this.target.repo, path, ref });
      // Tree entries carry `path`; `name` may be missing, so the last path segment names them.
      return Array.isArray(data) ? data.map((e) => e.name || (e.path ?? "").split("/").pop() || "").sort() : null;
    } catch {
      return null;
    }
  }

  /** A file in a ticket's State record on the remote (its own ref), or null. */
  async stateFile(ticket: number, path: string): Promise<string | null> {
    try {
      const { data } = await this.octokit.rest.repos.getContent({ owner: this.target.owner, repo: this.target.repo, path, ref: stateRecordRef(ticket) });
      if (Array.isArray(data) || !("content" in data)) return "(dir)";
      return Buffer.from(data.content, "base64").toString("utf8");
    } catch {
      return null;
    }
  }

  async stateOf(n: number): Promise<{ state: string; fixUsed: boolean; pullRequest: number | null; branch: string } | null> {
    const text = await this.stateFile(n, `ticket-${n}.json`);
    return text ? JSON.parse(text) : null;
  }

  /** The agent sessions `host`'s local claim of ticket `n` has noted (ADR 0452), or null when it names none. */
  async notedSessions(host: HostEnv, n: number): Promise<Record<string, string> | null> {
    const root = new FsRunRoot(host.runRoot);
    const read = await root.read(root.dirFor({ owner: this.target.owner, repo: this.target.repo }, n));
    return read.kind === "ok" && read.run.sessions ? read.run.sessions.stages : null;
  }

  async lock(): Promise<{ held: boolean; runId?: string }> {
    const text = await this.fileAt("ticket-runner/lock", "lock.json");
    return text ? JSON.parse(text) : { held: false };
  }

  async fileAt(ref: string, path: string): Promise<string | null> {
    try {
      const { data } = await this.octokit.rest.repos.getContent({ owner: this.target.owner, repo: this.target.repo, path, ref });
      if (Array.isArray(data) || !("content" in data)) return null;
      return Buffer.from(data.content, "base64").toString("utf8");
    } catch {
      return null;
    }
  }

  /** Every Stage log stem (`implement`, `retry/verify-2`, ...) a Run wrote for a ticket on a clone, by run id. */
  stageLogs(clone: string, ticket: number): Record<string, string[]> {
    const runs = join(clone, ".ticket-runner", "runs");
    const out: Record<string, string[]> = {};
    if (!existsSync(runs)) return out;
    for (const runId of readdirSync(runs).sort()) {
      const dir = join(runs, runId, String(ticket));
      if (!existsSync(dir)) continue;
      const walk = (d: string, prefix: string): string[] =>
        readdirSync(d, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(join(d, e.name), `${prefix}${e.name}/`) : e.name.endsWith(".command") ? [`${prefix}${e.name.replace(/\.command$/, "")}`] : [],
        );
      out[runId] = walk(dir, "").sort();
    }
    return out;
  }

  /** Agent invocations for a ticket across every Run on a clone. */
  agentCalls(clone: string, ticket: number): string[] {
    return Object.values(this.stageLogs(clone, ticket)).flat();
  }

  /** Waits until no process has its working directory inside `dir` (an orphaned Stage has died). */
  async noProcessesIn(dir: string): Promise<void> {
    const real = resolve(dir);
    await waitFor(
      () => {
        for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
          try {
            if (readlinkSync(`/proc/${pid}/cwd`).startsWith(real)) return false;
          } catch {
            // gone, or not ours
          }
        }
        return true;
      },
      { timeoutMs: 30_000, what: `no process left in ${dir}` },
    );
  }

  /** A second clone of the Target, playing another Host. */
  async cloneAgain(name: string): Promise<string> {
    const dir = join(this.scratch, name);
    await cloneWithToken(this.sandbox.gitUrl(this.target.owner, this.target.repo), this.target.userToken, dir);
    return dir;
  }

  async relabel(n: number, from: string, to: string): Promise<void> {
    await this.octokit.rest.issues.removeLabel({ owner: this.target.owner, repo: this.target.repo, issue_number: n, name: from });
    await this.octokit.rest.issues.addLabels({ owner: this.target.owner, repo: this.target.repo, issue_number: n, labels: [to] });
  }

  async dispose(): Promise<void> {
    for (const c of this.children) {
      if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    }
    await this.sandbox?.stop();
    if (this.scratch) rmSync(this.scratch, { recursive: true, force: true });
  }
}
