/** Runs the built CLI (dist/cli.js) as a real child process, and makes clones of sandbox repos. */
import { execFile, spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

export const CLI = resolve(__dirname, "../../../dist/cli.js");
const run = promisify(execFile);

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

const GIT_ENV = { GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "test@example.invalid", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "test@example.invalid", LC_ALL: "C" };

/** Clones `url` with the token sent as a header (never stored in the clone's config). */
export async function cloneWithToken(url: string, token: string, into: string): Promise<void> {
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  await run("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", url, into], { env: { ...process.env, ...GIT_ENV } });
}

/** Writes an untracked ticket-runner.json into a clone (excluded so the checkout stays clean). */
export function writeTargetConfig(clone: string, config: object): void {
  writeFileSync(join(clone, "ticket-runner.json"), JSON.stringify(config, null, 2));
  appendFileSync(join(clone, ".git", "info", "exclude"), "\nticket-runner.json\n");
}
