/**
 * What the sandbox's git over HTTP costs in CPU: N round trips of a writer's push (a new branch
 * with one small commit) and a reader's fetch of it, each request sent as a ticket's git sends
 * it (protocol v2 for fetch, v0 for push, the token in a header). Counted: the sandbox process, its
 * reaped children (every `git http-backend` with its pack programs and hooks, every git the
 * sandbox runs itself) and any live helper process of it (a spawner) with its reaped children.
 */
import { execFile } from "node:child_process";
import { promises as fsp, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SandboxAdmin } from "../../src/sandbox/admin-client";
import { liveTreeCpuMs, processCpuSplitMs } from "../cpu";

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(`git ${args.join(" ")}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

export interface GitRoundTrips {
  rounds: number;
  /** HTTP requests git sent (from the sandbox's request log). */
  requests: number;
  /** CPU of the sandbox's process tree per round trip (a push and a fetch), in ms. */
  cpuMsPerRound: number;
  /** Of it, the sandbox process's own (the rest is git's, and the spawner's). */
  ownMsPerRound: number;
  wallMsPerRound: number;
  /** The sandbox process's resident memory when measured, in MB (what a fork of it costs grows with it). */
  rssMb: number;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

/** git's requests among those the sandbox logged. */
async function gitRequests(admin: SandboxAdmin): Promise<number> {
  return (await admin.requestLog()).filter((r) => r.path.includes(".git/")).length;
}

export async function gitRoundTrips(o: { gitUrl: string; token: string; pid: number; rounds: number; admin: SandboxAdmin }): Promise<GitRoundTrips> {
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "bench-sandbox-git-"));
  const auth = ["-c", `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${o.token}`).toString("base64")}`];
  const identity = {
    GIT_AUTHOR_NAME: "bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
  };
  try {
    const writer = path.join(tmp, "writer");
    const reader = path.join(tmp, "reader");
    await run([...auth, "clone", "--quiet", o.gitUrl, writer], tmp);
    await run([...auth, "clone", "--quiet", o.gitUrl, reader], tmp);
    const round = async (i: number): Promise<void> => {
      await fsp.writeFile(path.join(writer, "round.txt"), `round ${i}\n`);
      await run(["add", "round.txt"], writer);
      await run(["commit", "--quiet", "-m", `round ${i}`], writer, identity);
      await run([...auth, "push", "--quiet", "origin", `HEAD:refs/heads/round-${i}`], writer);
      await run([...auth, "fetch", "--quiet", "origin"], reader);
    };
    await round(-1); // warm-up: the first push writes the sandbox's hook folder
    await o.admin.clearRequestLog();
    const cpu = liveTreeCpuMs(o.pid);
    const own = processCpuSplitMs(o.pid).own;
    const started = performance.now();
    for (let i = 0; i < o.rounds; i++) await round(i);
    const wall = performance.now() - started;
    return {
      rounds: o.rounds,
      requests: await gitRequests(o.admin),
      cpuMsPerRound: (liveTreeCpuMs(o.pid) - cpu) / o.rounds,
      ownMsPerRound: (processCpuSplitMs(o.pid).own - own) / o.rounds,
      wallMsPerRound: wall / o.rounds,
      rssMb: rssMb(o.pid),
    };
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true });
  }
}
