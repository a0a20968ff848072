/**
 * Runs a Node program to its end with stdout and stderr captured together, in the order they came:
 * for tests that assert what a child process printed and how it exited.
 */
import { spawn } from "node:child_process";

export function runNodeCaptured(args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
    child.stderr.on("data", (b: Buffer) => (out += b.toString("utf8")));
    child.on("close", (code) => resolve({ code, out }));
  });
}
