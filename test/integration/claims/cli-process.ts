/** Runs the built CLI (dist/cli.js) as a real child process, and writes a clone's ticket-runner.json. */
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const CLI = resolve(__dirname, "../../../dist/cli.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Starts `node dist/cli.js ...args`; resolves when it exits. */
export function runCli(args: string[], o: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LC_ALL: "C", ...o.env };
    const child = spawn(process.execPath, [CLI, ...args], { cwd: o.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}

/** Writes an untracked ticket-runner.json into a clone (excluded so the checkout stays clean). */
export function writeTargetConfig(clone: string, config: object): void {
  writeFileSync(join(clone, "ticket-runner.json"), JSON.stringify(config, null, 2));
  appendFileSync(join(clone, ".git", "info", "exclude"), "\nticket-runner.json\n");
}
