/**
 * The options every GitHub-facing command shares: which Target (`--repo owner/name`, else the
 * origin remote of the current checkout), which API (`--api-url`, else inferred from the remote:
 * api.github.com, a GitHub Enterprise /api/v3, or a loopback sandbox), and the token (environment
 * only, never argv: TICKET_RUNNER_TOKEN, then GH_TOKEN, then GITHUB_TOKEN). Also the Target's
 * config file (`ticket-runner.json` at the checkout's top level) and this Host's run root.
 */
import { homedir } from "node:os";
import { defaultRunRoot } from "../core/claims/run-root-path";
import { Refusal } from "../core/errors";
import type { RepoRef } from "../ports/tracker";
import type { Config } from "../core/schemas/config";
import { checkoutTop, originUrl } from "../adapters/git/checkout";
import { loadConfigOrDefaults } from "../app/config-load";
import { parseApiUrl, tokenFrom, type Target } from "../app/target";
import { parseRemoteUrl, parseRepo } from "../core/remote-url";
import type { CliIo } from "./command";

export interface ParsedArgs {
  positionals: string[];
  flags: Set<string>;
  values: Map<string, string>;
}

const TARGET_VALUES = ["--repo", "--api-url"];

/** Strict: an unknown option is refused (a typo must not silently change what runs). */
export function parseArgs(argv: string[], known: { flags?: string[]; values?: string[] }): ParsedArgs {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const positionals: string[] = [];
  const valueNames = new Set([...(known.values ?? []), ...TARGET_VALUES]);
  const flagNames = new Set(known.flags ?? []);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (flagNames.has(name) && eq < 0) {
      flags.add(name);
      continue;
    }
    if (!valueNames.has(name)) throw new Refusal("bad-input", `Unknown option ${name}. \`ticket-runner <command> --help\` lists the options.`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "")
      throw new Refusal("bad-input", `${name} needs a value, e.g. \`${name}=<value>\`; \`ticket-runner <command> --help\` lists the options.`);
    values.set(name, value);
  }
  return { positionals, flags, values };
}

/** Which command asks for the Target, so a refusal can give that same command back. */
export interface TargetUse {
  /** The command's name, e.g. "start". */
  command: string;
  /** The command works in a clone (worktrees, State, lock, files): --repo alone is not enough. */
  needsClone?: boolean;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line the person typed (ticket-runner <command> <arguments> <options>), plus `extra`; `--repo` only when `keepRepo`. */
function sameCommand(use: TargetUse, args: ParsedArgs, extra: string[] = [], keepRepo = false): string {
  const options = [...args.flags, ...[...args.values].filter(([name]) => keepRepo || name !== "--repo").flatMap(([name, value]) => [name, value])];
  return ["ticket-runner", use.command, ...args.positionals, ...options, ...extra].map(shellWord).join(" ");
}

/** The clone's top level, or a refusal that says to go to the clone and gives the same command back. */
export function requireClone(io: CliIo, use: TargetUse, args: ParsedArgs): string {
  const top = checkoutTop(io.cwd);
  if (!top) throw noClone(use, args, io.cwd);
  return top;
}

function noClone(use: TargetUse, args: ParsedArgs, cwd: string): Refusal {
  const again = sameCommand(use, args, [], true);
  return new Refusal(
    "not-a-target",
    `\`ticket-runner ${use.command}\` works in a clone of the Target (its worktrees and files live there), and ${cwd} is not inside one. ` +
      `Go to your clone and run it there: \`cd <your clone> && ${again}\`; no clone yet: \`git clone <the repository's URL> && cd <clone>\` first.`,
    { next: `cd <your clone> && ${again}` },
  );
}

/** `--api-url`, else TICKET_RUNNER_API_URL, read first: a refusal of anything else would echo its credentials. */
function givenApiUrl(args: ParsedArgs, io: CliIo, use: TargetUse): string | null {
  const given = args.values.get("--api-url");
  if (given !== undefined) {
    const without: ParsedArgs = { ...args, values: new Map([...args.values].filter(([name]) => name !== "--api-url")) };
    return parseApiUrl(given, { where: "--api-url", next: `\`${sameCommand(use, without, ["--api-url", "<API root>"], true)}\`` });
  }
  const fromEnv = io.env.TICKET_RUNNER_API_URL?.trim();
  return fromEnv ? parseApiUrl(fromEnv, { where: "TICKET_RUNNER_API_URL", next: "unset TICKET_RUNNER_API_URL or correct it" }) : null;
}

/**
 * `checkout`: the clone's top level when the command already asked git for it (`run` does, to read
 * the config first), and its origin's URL when it asked that too (ADR 0495): otherwise each ask is
 * a git process started synchronously. With the config the command already read there, the file
 * is not read and validated again (ADR 0475).
 */
export function resolveTarget(
  args: ParsedArgs,
  io: CliIo,
  use: TargetUse,
  checkoutKnown?: { top: string | null; config?: Config; origin?: string | null },
): Target {
  const given = givenApiUrl(args, io, use);
  const checkout = checkoutKnown ? checkoutKnown.top : checkoutTop(io.cwd);
  if (use.needsClone && !checkout) throw noClone(use, args, io.cwd);
  const origin = checkoutKnown?.origin !== undefined ? checkoutKnown.origin : checkout ? originUrl(checkout) : null;
  const inferred = origin ? parseRemoteUrl(origin) : null;
  const repoText = args.values.get("--repo");
  const repo = repoText ? parseRepo(repoText) : (inferred?.repo ?? null);
  const withRepo = sameCommand(use, args, ["--repo", "owner/name"]);
  if (repoText && !repo) throw new Refusal("bad-input", `--repo must look like owner/name, not "${repoText}": \`${withRepo}\`.`, { next: withRepo });
  if (!repo) {
    throw new Refusal(
      "not-a-target",
      `No Target: ${checkout ? `the clone ${checkout} has no origin remote naming a GitHub repository` : `${io.cwd} is not inside a clone`}. Name the repository: \`${withRepo}\`, or run it inside a clone whose origin remote is the GitHub repository (\`cd <your clone>\`).`,
      { next: withRepo },
    );
  }
  const apiUrl = (given ?? (inferred && (!repoText || sameRepo(inferred.repo, repo)) ? inferred.apiUrl : "https://api.github.com")).replace(/\/+$/, "");
  return {
    repo,
    apiUrl,
    token: tokenFrom(io.env),
    checkout,
    config: checkoutKnown?.config ?? loadConfigOrDefaults(checkout),
    runRoot: defaultRunRoot(io.env, homedir()),
  };
}

function sameRepo(a: RepoRef, b: RepoRef): boolean {
  return a.owner.toLowerCase() === b.owner.toLowerCase() && a.repo.toLowerCase() === b.repo.toLowerCase();
}
