/**
 * Sandbox CI: when an open pull request's head moves (or a pull request opens), run the
 * repository's ciCommand (argv, never a shell) in a fresh checkout of that commit and report it as
 * a check run named "sandbox-ci" going queued -> in_progress -> completed. scriptCi() overrides
 * the outcome and adds a delay (half spent queued, half in progress, so tests can see both).
 */
import { spawn } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { App } from "./app";
import { gitOk } from "./git";
import { isoNow, queuedCheckRun } from "./model";
import type { CheckRunRec, RepoRec } from "./model";

export const CI_CHECK_NAME = "sandbox-ci";
const OUTPUT_TAIL = 4000;
const CI_TIMEOUT_MS = 10 * 60_000;

export function attachCi(app: App): void {
  app.onHeadChanged = (repo, sha) => {
    if (!repo.ciCommand && !repo.ciScript) return;
    const run = queuedCheckRun(app.store.nextId(), CI_CHECK_NAME, sha, CI_CHECK_NAME);
    repo.checkRuns.push(run);
    app.track(runCi(app, repo, run));
  };
  // A sandbox stopped mid-run (--data keeps its state) left those check runs queued or
  // in_progress; like a CI service after a restart, run them again instead of leaving a Run
  // waiting for a check that can never finish.
  for (const repo of Object.values(app.store.state.repos)) {
    for (const run of repo.checkRuns) {
      if (run.name !== CI_CHECK_NAME || run.status === "completed") continue;
      Object.assign(run, { status: "queued", startedAt: null });
      app.track(runCi(app, repo, run));
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function runCi(app: App, repo: RepoRec, run: CheckRunRec): Promise<void> {
  const script = repo.ciScript;
  const delay = script?.delayMs ?? 0;
  await sleep(delay / 2);
  if (app.stopping) return;
  run.status = "in_progress";
  run.startedAt = isoNow();
  await app.store.changed();
  let conclusion: "success" | "failure";
  let summary: string;
  let text = "";
  if (script?.conclusion) {
    conclusion = script.conclusion;
    summary = `scripted by the sandbox admin: ${conclusion}`;
  } else if (repo.ciCommand) {
    // A CI run that cannot even start still completes (as a failure), never hangs in_progress.
    const result = await runCommand(app, repo, run.headSha, repo.ciCommand).catch((e: unknown) => ({
      code: 1,
      tail: `sandbox CI could not run: ${e instanceof Error ? e.message : String(e)}`,
    }));
    conclusion = result.code === 0 ? "success" : "failure";
    summary = `\`${repo.ciCommand.join(" ")}\` exited with ${result.code === null ? "a signal" : result.code}`;
    text = result.tail;
  } else {
    conclusion = "success";
    summary = "no CI command configured";
  }
  await sleep(delay / 2);
  if (app.stopping) return;
  run.status = "completed";
  run.conclusion = conclusion;
  run.completedAt = isoNow();
  run.output = { title: `${CI_CHECK_NAME}: ${conclusion}`, summary, text };
  await app.store.changed();
}

async function runCommand(app: App, repo: RepoRec, sha: string, argv: string[]): Promise<{ code: number | null; tail: string }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-ci-"));
  const index = path.join(dir, ".sandbox-index");
  const work = path.join(dir, "work");
  try {
    const gitDir = app.gitDir(repo);
    // A private index, so concurrent CI runs never share the bare repository's index.
    await gitOk(["read-tree", sha], { gitDir, env: { GIT_INDEX_FILE: index } });
    await fsp.mkdir(work);
    await gitOk(["--work-tree", work, "checkout-index", "-a", "-f"], { gitDir, env: { GIT_INDEX_FILE: index } });
    const [cmd, ...args] = argv;
    if (!cmd) return { code: 1, tail: "empty ciCommand" };
    return await new Promise((resolve) => {
      const child = spawn(cmd, args, { cwd: work, env: { ...process.env, CI: "true", SANDBOX_CI: "1", GITHUB_SHA: sha }, stdio: ["ignore", "pipe", "pipe"] });
      let tail = "";
      const keep = (b: Buffer): void => {
        tail = (tail + b.toString("utf8")).slice(-OUTPUT_TAIL);
      };
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      const timer = setTimeout(() => child.kill("SIGKILL"), CI_TIMEOUT_MS);
      const poll = setInterval(() => {
        if (app.stopping) child.kill("SIGKILL");
      }, 200);
      child.on("error", (e) => {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ code: 127, tail: `could not start ${cmd}: ${e.message}` });
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ code, tail });
      });
    });
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
