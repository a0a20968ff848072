/**
 * receive-pack's answer to `GET info/refs?service=git-receive-pack` (ADR 0474), written here
 * rather than by a `git receive-pack --http-backend-info-refs` per push: every visible ref and its
 * object, one pkt-line each in refname order, the first carrying the capabilities
 * (receive-pack.c `write_head_info`, `show_ref`), `version 1` first under protocol v1, a flush last.
 *
 * What comes from git, not from here: the capability list, cut from receive-pack's own answer,
 * and the hidden refs (receive.hideRefs, transfer.hideRefs), from `git config`, both made once per
 * repository and made again when its config changes (config-state.ts); each ref's object, from
 * the repository's `cat-file` batch (commit-lookup.ts), which reads a ref as git does (loose over
 * packed, a symbolic ref followed). Only the refs' names are read here, from the folders under
 * refs/ and packed-refs. Whatever this does not model is answered by receive-pack itself (null):
 * a broken ref (receive-pack shows one whose object is missing, and a null id for one it cannot
 * read, but not a dangling symbolic ref: cat-file answers "missing" for all three), a name git
 * would not take, a symbolic link, a line of packed-refs not understood, a shallow repository,
 * alternates (their refs are `.have` lines), a list with a push-cert nonce or a session id (each
 * process's own), a hash other than SHA-1, a batch that is gone.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import type { CommitLookups } from "./commit-lookup";
import { KeptPerConfig } from "./config-state";
import { git, isSafeRefName } from "./git";
import { pktLine, protocolVersion } from "./smart-http";
import { pathExists } from "./path-exists";

const ZERO = "0".repeat(40);

interface Setup {
  capabilities: string;
  /** receive.hideRefs and transfer.hideRefs, in config order, trailing slashes off. */
  hidden: string[];
}

/** The capabilities from receive-pack's own first line (after its NUL), or null when they are not the same in every process. */
async function capabilitiesOf(gitDir: string): Promise<string | null> {
  const r = await git(["receive-pack", "--http-backend-info-refs", "."], { cwd: gitDir });
  if (r.code !== 0) return null;
  const out = Buffer.from(r.stdout, "utf8");
  const length = parseInt(out.subarray(0, 4).toString("latin1"), 16);
  const first = out.subarray(4, length).toString("utf8");
  const nul = first.indexOf("\0");
  if (nul < 0 || !first.endsWith("\n")) return null;
  const capabilities = first.slice(nul + 1, -1);
  const words = capabilities.split(" ");
  if (!words.includes("object-format=sha1") || words.some((w) => w.startsWith("push-cert=") || w.startsWith("session-id="))) return null;
  return capabilities;
}

/** The hidden ref patterns as receive-pack reads them (refs.c `parse_hide_refs_config`); null: one it would refuse (no value). */
async function hiddenRefs(gitDir: string): Promise<string[] | null> {
  const r = await git(["config", "-z", "--get-regexp", "^(receive|transfer)\\.hiderefs$"], { gitDir });
  if (r.code === 1) return [];
  if (r.code !== 0) return null;
  const patterns: string[] = [];
  for (const entry of r.stdout.split("\0")) {
    if (entry === "") continue;
    const nl = entry.indexOf("\n");
    if (nl < 0) return null;
    patterns.push(entry.slice(nl + 1).replace(/\/+$/, ""));
  }
  return patterns;
}

/** refs.c `ref_is_hidden`: the last pattern that matches decides; `!` shows, `^` matches the full name (no namespace here: the same). */
export function isHidden(refname: string, hidden: readonly string[]): boolean {
  for (let i = hidden.length - 1; i >= 0; i--) {
    let match = hidden[i]!;
    const show = match.startsWith("!");
    if (show) match = match.slice(1);
    if (match.startsWith("^")) match = match.slice(1);
    if (refname.startsWith(match) && (refname.length === match.length || refname[match.length] === "/")) return !show;
  }
  return false;
}

/** A name git would iterate as a ref (check_refname_format, and no component ending ".lock"). */
export function isRefName(name: string): boolean {
  return name.startsWith("refs/") && isSafeRefName(name) && !name.split("/").some((part) => part.endsWith(".lock"));
}

/**
 * Whether no ref under `folder` ("refs/pull/", with its slash) can be shown when `hidden` hides
 * it: the pattern deciding for the folder decides for every ref in it, unless one names something
 * inside it (`refs/pull/7`, `!refs/pull/7/head`), which could decide otherwise for that ref.
 */
export function hiddenFolder(folder: string, hidden: readonly string[]): boolean {
  if (!isHidden(folder.slice(0, -1), hidden)) return false;
  return !hidden.some((p) => p.replace(/^!/, "").replace(/^\^/, "").startsWith(folder));
}

/**
 * The loose refs' names under `dir` (files_backend `loose_fill_ref_dir` skips names starting "." or
 * ending ".lock"); false: something not modelled. A folder `skip` names ("refs/pull/") is not read:
 * no ref in it could be in the answer (hidden, or outside every prefix asked for), so what it holds
 * changes nothing, as git's iteration, which leaves out the same refs, shows none of it either. Each
 * pull request adds a folder under refs/pull/, hidden from receive-pack and outside a fetch's
 * prefixes: unskipped, every push and fetch read one more folder for every pull request ever opened.
 */
export async function looseNames(dir: string, prefix: string, into: string[], skip: (folder: string) => boolean = () => false): Promise<boolean> {
  return looseNamesIn(dir, prefix, into, skip);
}

/**
 * looseNames' walk, each folder read in place: a push's or fetch's listing reads a folder for
 * every slash in a branch's name, and a trip to the thread pool each cost more CPU than the read
 * (ADR 0507).
 */
function looseNamesIn(dir: string, prefix: string, into: string[], skip: (folder: string) => boolean): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    if (e.name.startsWith(".") || e.name.endsWith(".lock")) continue;
    const name = `${prefix}${e.name}`;
    if (e.isDirectory()) {
      if (skip(`${name}/`)) continue;
      if (!looseNamesIn(path.join(dir, e.name), `${name}/`, into, skip)) return false;
    } else if (e.isFile() && isRefName(name)) {
      into.push(name);
    } else {
      return false;
    }
  }
  return true;
}

/** The names in packed-refs; null: a line not understood. Read in place, as the loose names are. */
export async function packedNames(gitDir: string): Promise<string[] | null> {
  let text: string;
  try {
    text = readFileSync(path.join(gitDir, "packed-refs"), "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? [] : null;
  }
  const names: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# pack-refs with:") || /^\^[0-9a-f]{40}$/.test(line)) continue;
    const m = /^[0-9a-f]{40} (.+)$/.exec(line);
    if (!m || !isRefName(m[1]!)) return null;
    names.push(m[1]!);
  }
  return names;
}

export class ReceivePackAdvertisements {
  private readonly kept = new KeptPerConfig((gitDir): Promise<Setup | null> =>
    Promise.all([capabilitiesOf(gitDir), hiddenRefs(gitDir)]).then(([capabilities, hidden]) =>
      capabilities !== null && hidden !== null ? { capabilities, hidden } : null,
    ),
  );

  constructor(private readonly commits: CommitLookups) {}

  /** receive-pack's advertisement (without http-backend's `# service=` line), or null: run receive-pack. */
  async advertisement(gitDir: string, gitProtocol: string | undefined): Promise<Buffer | null> {
    const setup = await this.setup(gitDir);
    if (!setup || !this.commits.batched(gitDir)) return null;
    if ((await pathExists(path.join(gitDir, "shallow"))) || (await pathExists(path.join(gitDir, "objects", "info", "alternates")))) return null;
    const loose: string[] = [];
    const [looseOk, packed] = await Promise.all([
      looseNames(path.join(gitDir, "refs"), "refs/", loose, (folder) => hiddenFolder(folder, setup.hidden)),
      packedNames(gitDir),
    ]);
    if (!looseOk || !packed) return null;
    const names = [...new Set([...loose, ...packed])]
      .filter((n) => !isHidden(n, setup.hidden))
      .sort((a, b) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
    const objects = await Promise.all(names.map((n) => this.commits.object(gitDir, n)));
    // A ref cat-file cannot follow to an object is one receive-pack shows (its object missing; a
    // null id for a file it cannot read) or leaves out (a dangling symbolic ref), or one deleted
    // meanwhile; an answer of rev-parse's (the batch went away) does not tell: receive-pack answers.
    const refs: string[] = [];
    for (const [i, name] of names.entries()) {
      const found = objects[i];
      if (!found || found.type === "") return null;
      refs.push(`${found.sha} ${name}`);
    }
    // No ref: the capabilities go on a line of their own (`capabilities^{}`, the null object).
    const lines = (refs.length ? refs : [`${ZERO} capabilities^{}`]).map((line, i) => pktLine(i === 0 ? `${line}\0${setup.capabilities}\n` : `${line}\n`));
    const version = protocolVersion(gitProtocol) === 1 ? [pktLine("version 1\n")] : [];
    return Buffer.concat([...version, ...lines, Buffer.from("0000")]);
  }

  /** Forgets a repository's setup (made anew), or every one (the sandbox reset). */
  forget(gitDir?: string): void {
    this.kept.forget(gitDir);
  }

  private async setup(gitDir: string): Promise<Setup | null> {
    // Kept null too (a list that differs in every process, git failing): receive-pack answers until the config changes.
    return (await this.kept.get(gitDir)) ?? null;
  }
}
