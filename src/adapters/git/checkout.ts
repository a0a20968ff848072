/** Where a command runs: the top level of the git checkout around it, and its origin remote. */
import { execFile, execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { redactSecrets } from "../../core/redact";
import { CLONE_STORE_ARGS, cloneStoreOf } from "./clone-store";
import { noteOriginFound, noteTopFound } from "./checkout-found";
import { PREFLIGHT_REV_PARSE } from "./preflight";
import { runGitProcess } from "./git-process";

/** How long `run`'s first questions may go without an answer: git reads two small files for them. */
const ASK_IDLE_MS = 60_000;

function revParse(cwd: string, args: readonly string[]): string[] | null {
  try {
    return execFileSync("git", ["rev-parse", ...args], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, LC_ALL: "C" },
    })
      .trim()
      .split("\n");
  } catch {
    return null;
  }
}

export function checkoutTop(cwd: string): string | null {
  return revParse(cwd, ["--show-toplevel"])?.[0] || null;
}

/** `git remote get-url origin`'s answer: the URL, or null when there is no such remote. */
function originFrom(checkout: string, url: string): string | null {
  const found = url.trim() || null;
  if (found) noteOriginFound(checkout);
  return found;
}

/**
 * The checkout's top and its origin's URL for `ticket-runner run`, asked at once through the
 * Run's git spawner (ADR 0495): two synchronous `execFileSync`s each forked the whole Node
 * process, one after the other, on every Run's start. The top is asked with the preflight's own
 * `rev-parse` arguments and kept for it (checkout-found.ts), which then starts no git of its own
 * for it (ADR 0490); the origin is asked in the same folder, which git resolves to the same
 * repository as its top. A git that refuses those arguments is asked for the top alone, as
 * before, and the preflight asks its own way.
 */
export async function checkoutForRun(cwd: string): Promise<{ top: string | null; origin: string | null }> {
  const ask = (args: string[]) => runGitProcess(args, { cwd, env: { ...process.env, LC_ALL: "C" }, idleMs: ASK_IDLE_MS });
  const [parsed, remote] = await Promise.all([ask(["rev-parse", ...PREFLIGHT_REV_PARSE]), ask(["remote", "get-url", "origin"])]);
  const [top = "", gitDir = "", ...store] = parsed.code === 0 ? parsed.stdout.toString("utf8").trim().split("\n") : [];
  const whole = Boolean(top) && gitDir.startsWith("/") && store.length === CLONE_STORE_ARGS.length;
  if (whole) noteTopFound({ top, gitDir, store: cloneStoreOf(cwd, store) });
  const found = whole ? top : checkoutTop(cwd);
  return { top: found, origin: found && remote.code === 0 ? originFrom(found, remote.stdout.toString("utf8")) : null };
}

/** The URL of the checkout's `origin` remote, or null when it has none. */
export function originUrl(checkout: string): string | null {
  try {
    return originFrom(
      checkout,
      execFileSync("git", ["remote", "get-url", "origin"], {
        cwd: checkout,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        env: { ...process.env, LC_ALL: "C" },
      }),
    );
  } catch {
    return null;
  }
}

/** git with the token, when there is one, as an HTTP header in git's environment: never in argv or a clone's config. */
function gitWithToken(cwd: string, args: string[], token: string | null): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" };
  if (token) {
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = "http.extraHeader";
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  }
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env, encoding: "utf8" }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout.trim());
      reject(new Error(redactSecrets(`git ${args.join(" ")} failed: ${stderr.trim() || error.message}`, { TICKET_RUNNER_TOKEN: token ?? undefined })));
    });
  });
}

/** Clones `url` into `dest` (whose parent exists) with the token in git's environment only. */
export async function cloneWithToken(url: string, dest: string, token: string): Promise<void> {
  await gitWithToken(dirname(dest), ["clone", "-q", url, dest], token);
}

/** Points the checkout's origin remote at `url` when it names another (the sandbox came back on a new port). */
export async function pointOriginAt(checkout: string, url: string): Promise<void> {
  if ((await gitWithToken(checkout, ["remote", "get-url", "origin"], null)) === url) return;
  await gitWithToken(checkout, ["remote", "set-url", "origin", url], null);
}
