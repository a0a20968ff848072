/**
 * The one git call simple-git cannot make: one that reads its stdin (`cat-file --batch`,
 * `hash-object --stdin`, `update-index --index-info`, `commit-tree` with its message). simple-git
 * never writes to or closes a child's stdin, so such a call would wait until its timeout
 * (ADR 0150; the State branch tests read and write through these calls on every run).
 */
import { spawn } from "node:child_process";
import type { GitOutput } from "./git-runner";

export function gitWithInput(args: string[], cwd: string, env: NodeJS.ProcessEnv, input: string | Buffer, timeoutMs: number): Promise<GitOutput> {
  return new Promise((resolve) => {
    const child = spawn("git", args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => {
      err.push(Buffer.from(`\n(ticket-runner stopped git after ${timeoutMs} ms)`));
      child.kill("SIGKILL");
    }, timeoutMs);
    const finish = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") });
    };
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", (e) => {
      err.push(Buffer.from(String(e.message)));
      finish(null);
    });
    child.on("close", (code) => finish(code));
    // git may exit before reading all of stdin (e.g. on a bad argument); that is not our error.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}
