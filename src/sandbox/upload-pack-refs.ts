/**
 * upload-pack's ref listings written here rather than by an upload-pack process each (ADR 0479):
 * the v0/v1 answer to `GET info/refs?service=git-upload-pack` (upload-pack.c `upload_pack`,
 * `write_v0_ref`: HEAD, then every visible ref in refname order, a tag followed by its peeled
 * object, the first line carrying the capabilities and `symref=HEAD:<target>`), and the answer to
 * a protocol v2 `command=ls-refs` request (ls-refs.c: HEAD, unborn or not, then the refs the
 * `ref-prefix` arguments name, with `symref-target:` and `peeled:` when asked).
 *
 * What comes from git, not from here: the capability list, cut from upload-pack's own v0 answer
 * with its `symref=` taken out (HEAD's target is put back per answer); the hidden refs
 * (uploadpack.hideRefs, transfer.hideRefs) and lsrefs.unborn, from `git config`; both made once per
 * repository and again when its config changes (config-state.ts). Each ref's object and type, and
 * a tag's peeled object, come from the repository's `cat-file` batch (commit-lookup.ts). Only the
 * refs' names, and whether a loose ref is symbolic, are read here. Whatever this does not model is
 * answered by upload-pack itself (null): what receive-pack-advertisement.ts leaves to receive-pack
 * (a broken ref, a symbolic link, a shallow repository, alternates, a session id, a hash other than
 * SHA-1), a detached HEAD, a symbolic ref to a symbolic ref, and any ls-refs request but the plain
 * shape git sends (see parseLsRefs).
 */
import { promises as fsp, readFileSync } from "node:fs";
import path from "node:path";
import type { CommitLookups } from "./commit-lookup";
import { KeptPerConfig } from "./config-state";
import { git, isSafeRefName } from "./git";
import { hiddenFolder, isHidden, looseNames, packedNames } from "./receive-pack-advertisement";
import { pktLine, protocolVersion } from "./smart-http";
import { pathExists } from "./path-exists";

/** ls-refs.c TOO_MANY_PREFIXES: with this many `ref-prefix` lines, git uses none of them. */
const TOO_MANY_PREFIXES = 65536;
/** An ls-refs request larger than this is left to upload-pack (git's are a few hundred bytes). */
export const MAX_LS_REFS_REQUEST = 64 * 1024;

interface Setup {
  /** uploadpack.hideRefs and transfer.hideRefs, in config order, trailing slashes off. */
  hidden: string[];
  /** lsrefs.unborn is "advertise" or "allow" (git's default): ls-refs honours `unborn`. */
  allowUnborn: boolean;
}

/** upload-pack's v0 capabilities before `symref=` and after it. */
interface Capabilities {
  before: string;
  after: string;
}

interface Kept {
  setup: Promise<Setup | null>;
  /** Asked of upload-pack when first needed; "unknown": it listed no ref, so showed none (asked again next time). */
  capabilities?: Promise<Capabilities | "unknown" | null>;
}

/** One ref as upload-pack iterates it: its object, a tag's peeled object, a symbolic ref's target. */
interface Ref {
  name: string;
  sha: string;
  peeled: string | null;
  target: string | null;
}

/** The refs upload-pack would list, and HEAD (null oid: unborn); null: something not modelled. */
interface Refs {
  head: { sha: string | null; peeled: string | null; target: string } | null;
  refs: Ref[];
}

/** The capabilities of upload-pack's own v0 first line, split around its `symref=` (which follows `no-done`). */
async function capabilitiesOf(gitDir: string): Promise<Capabilities | "unknown" | null> {
  const r = await git(["upload-pack", "--http-backend-info-refs", "."], { cwd: gitDir });
  if (r.code !== 0) return null;
  const out = Buffer.from(r.stdout, "utf8");
  // No ref to show (none, or all hidden): a flush alone, with no capability in it.
  if (out.toString("latin1") === "0000") return "unknown";
  const length = parseInt(out.subarray(0, 4).toString("latin1"), 16);
  const first = out.subarray(4, length).toString("utf8");
  const nul = first.indexOf("\0");
  if (nul < 0 || !first.endsWith("\n")) return null;
  const words = first.slice(nul + 1, -1).split(" ");
  if (!words.includes("object-format=sha1") || words.some((w) => w.startsWith("session-id="))) return null;
  const cut = words.indexOf("no-done") + 1;
  if (cut === 0) return null;
  const rest = words.slice(cut);
  const symrefs = rest.findIndex((w) => !w.startsWith("symref="));
  const after = symrefs < 0 ? [] : rest.slice(symrefs);
  if (after.some((w) => w.startsWith("symref="))) return null;
  return { before: words.slice(0, cut).join(" "), after: after.join(" ") };
}

/**
 * Hidden refs as upload-pack reads them (refs.c `parse_hide_refs_config`), and lsrefs.unborn
 * (ls-refs.c `ensure_config_read`); null: a repository not on SHA-1 (extensions.objectFormat), or
 * a value not modelled.
 */
async function configOf(gitDir: string): Promise<Setup | null> {
  const r = await git(["config", "-z", "--get-regexp", "^((uploadpack|transfer)\\.hiderefs|lsrefs\\.unborn|extensions\\.objectformat)$"], { gitDir });
  if (r.code === 1) return { hidden: [], allowUnborn: true };
  if (r.code !== 0) return null;
  const hidden: string[] = [];
  let unborn = "advertise";
  for (const entry of r.stdout.split("\0")) {
    if (entry === "") continue;
    const nl = entry.indexOf("\n");
    // A key with no value: git refuses it (or reads it otherwise); upload-pack answers.
    if (nl < 0) return null;
    const key = entry.slice(0, nl);
    const value = entry.slice(nl + 1);
    if (key === "extensions.objectformat") {
      if (value !== "sha1") return null;
    } else if (key === "lsrefs.unborn") unborn = value;
    else hidden.push(value.replace(/\/+$/, ""));
  }
  if (unborn !== "advertise" && unborn !== "allow" && unborn !== "ignore") return null;
  return { hidden, allowUnborn: unborn !== "ignore" };
}

/**
 * A loose ref file's symbolic target, "" for an object id, null for anything else. Read in place:
 * an advertisement reads every listed branch's file, and a readFile on the thread pool is four
 * trips there, each more CPU than the 41 bytes' read (ADR 0507).
 */
async function looseTarget(file: string): Promise<string | null> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (/^[0-9a-f]{40}\n$/.test(text)) return "";
  const m = /^ref: (refs\/[^\n]+)\n$/.exec(text);
  return m && isSafeRefName(m[1]!) ? m[1]! : null;
}

/**
 * looseTarget for a name in a folder the walk did not read: "" where no loose ref has that name (a
 * packed one, or none, or a folder: as for a name the walk did not find), null for a symbolic link
 * (the walk leaves one to upload-pack).
 */
async function unreadTarget(file: string): Promise<string | null> {
  const stat = await fsp.lstat(file).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" || e.code === "ENOTDIR" ? "absent" : null));
  if (stat === "absent" || stat?.isDirectory()) return "";
  return stat?.isFile() ? looseTarget(file) : null;
}

function byName(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export class UploadPackRefs {
  private readonly kept = new KeptPerConfig((gitDir): Kept => ({ setup: configOf(gitDir) }));

  constructor(private readonly commits: CommitLookups) {}

  /** upload-pack's v0/v1 advertisement (without http-backend's `# service=` line), or null: run upload-pack. */
  async advertisement(gitDir: string, gitProtocol: string | undefined): Promise<Buffer | null> {
    const setup = await this.setup(gitDir);
    const listed =
      setup &&
      (await this.refs(
        gitDir,
        (name) => !isHidden(name, setup.hidden),
        (folder) => !hiddenFolder(folder, setup.hidden),
      ));
    if (!setup || !listed) return null;
    const version = protocolVersion(gitProtocol) === 1 ? [pktLine("version 1\n")] : [];
    const lines: string[] = [];
    const add = (sha: string, name: string, peeled: string | null): void => {
      lines.push(`${sha} ${name}`);
      if (peeled) lines.push(`${peeled} ${name}^{}`);
    };
    const { head } = listed;
    // HEAD is listed, and named in `symref=`, only when it points at a ref that exists.
    if (head?.sha && !isHidden("HEAD", setup.hidden)) add(head.sha, "HEAD", head.peeled);
    for (const ref of listed.refs) if (!isHidden(ref.name, setup.hidden)) add(ref.sha, ref.name, ref.peeled);
    // No ref shown: a flush alone (git 2.39's upload-pack writes no `capabilities^{}` line).
    if (!lines.length) return Buffer.concat([...version, Buffer.from("0000")]);
    const caps = await this.capabilities(gitDir);
    if (!caps) return null;
    const symref = head?.sha ? [`symref=HEAD:${head.target}`] : [];
    const capabilities = [caps.before, ...symref, ...(caps.after ? [caps.after] : [])].join(" ");
    const [first, ...rest] = lines;
    return Buffer.concat([...version, pktLine(`${first}\0${capabilities}\n`), ...rest.map((l) => pktLine(`${l}\n`)), Buffer.from("0000")]);
  }

  /** upload-pack's answer to a protocol v2 request (its body), when it is an ls-refs request this models; else null: run upload-pack. */
  async lsRefs(gitDir: string, body: Buffer): Promise<Buffer | null> {
    const args = parseLsRefs(body);
    if (!args) return null;
    const setup = await this.setup(gitDir);
    if (!setup) return null;
    const prefixes = args.prefixes.length >= TOO_MANY_PREFIXES ? [] : args.prefixes;
    const shown = (name: string): boolean => !isHidden(name, setup.hidden) && (!prefixes.length || prefixes.some((p) => name.startsWith(p)));
    // A folder no prefix reaches into (refs/pull/ for a fetch of refs/heads/main) holds no ref shown.
    const reached = (folder: string): boolean =>
      !hiddenFolder(folder, setup.hidden) && (!prefixes.length || prefixes.some((p) => p.startsWith(folder) || folder.startsWith(p)));
    const listed = await this.refs(gitDir, shown, reached);
    if (!listed) return null;
    const unborn = args.unborn && setup.allowUnborn;
    const lines: string[] = [];
    const send = (name: string, sha: string | null, peeled: string | null, target: string | null): void => {
      if (!shown(name)) return;
      let line = sha ? `${sha} ${name}` : `unborn ${name}`;
      if (args.symrefs && target) line += ` symref-target:${target}`;
      if (args.peel && peeled) line += ` peeled:${peeled}`;
      lines.push(line);
    };
    const { head } = listed;
    if (head && (head.sha || (unborn && args.symrefs))) send("HEAD", head.sha, head.peeled, head.target);
    for (const ref of listed.refs) send(ref.name, ref.sha, ref.peeled, ref.target);
    return Buffer.concat([...lines.map((l) => pktLine(`${l}\n`)), Buffer.from("0000")]);
  }

  /** Forgets a repository's setup (made anew), or every one (the sandbox reset). */
  forget(gitDir?: string): void {
    this.kept.forget(gitDir);
  }

  private async setup(gitDir: string): Promise<Setup | null> {
    const kept = await this.kept.get(gitDir);
    // Kept null too (a value not modelled, git failing): upload-pack answers until the config changes.
    return kept ? kept.setup : null;
  }

  /** The capabilities, from upload-pack's own answer, made once per config (setup() made the entry); null: upload-pack answers. */
  private async capabilities(gitDir: string): Promise<Capabilities | null> {
    const kept = this.kept.latest(gitDir);
    if (!kept) return null;
    kept.capabilities ??= capabilitiesOf(gitDir);
    const caps = await kept.capabilities;
    // Kept null too (a list that differs in every process, git failing), until the config changes;
    // none to cut (upload-pack showed no ref meanwhile): asked again next time.
    if (caps !== "unknown") return caps;
    if (this.kept.latest(gitDir) === kept) delete kept.capabilities;
    return null;
  }

  /**
   * The refs `wanted` keeps, and HEAD, read as upload-pack iterates them; null: something not
   * modelled. Only those are looked up (a fetch's ls-refs names one branch): a ref git would not
   * show either, broken or not, does not change the answer. For the same reason a folder of refs
   * `reached` says none of is wanted is not read (looseNames), unless HEAD's target is in it.
   */
  private async refs(gitDir: string, wanted: (name: string) => boolean, reached: (folder: string) => boolean): Promise<Refs | null> {
    if (!this.commits.batched(gitDir)) return null;
    if ((await pathExists(path.join(gitDir, "shallow"))) || (await pathExists(path.join(gitDir, "objects", "info", "alternates")))) return null;
    const headTarget = await looseTarget(path.join(gitDir, "HEAD"));
    // A detached HEAD ("") or one not understood: not modelled.
    if (!headTarget) return null;
    const loose: string[] = [];
    const skipped: string[] = [];
    const skip = (folder: string): boolean => !headTarget.startsWith(folder) && !reached(folder) && skipped.push(folder) > 0;
    const [looseOk, packed] = await Promise.all([looseNames(path.join(gitDir, "refs"), "refs/", loose, skip), packedNames(gitDir)]);
    if (!looseOk || !packed) return null;
    const known = new Set([...loose, ...packed]);
    const names = [...known].filter(wanted).sort(byName);
    // Which of them (and HEAD's target) is symbolic: a loose ref's file says ("": not symbolic or not loose).
    const isLoose = new Set(loose);
    // A symbolic ref's target in a folder not read is read now: it may be a symbolic ref too.
    const targetOf = (name: string): Promise<string | null> =>
      isLoose.has(name)
        ? looseTarget(path.join(gitDir, name))
        : skipped.some((f) => name.startsWith(f))
          ? unreadTarget(path.join(gitDir, name))
          : Promise.resolve("");
    const read = [...new Set([...names, headTarget])];
    const targets = await Promise.all(read.map(targetOf));
    const symbolic = new Map<string, string>();
    for (const [i, name] of read.entries()) {
      const target = targets[i];
      if (target === null || target === undefined) return null;
      if (target) symbolic.set(name, target);
    }
    // A symbolic ref to a symbolic ref, HEAD's included (git names the last target): not modelled.
    const pointedAt = [...new Set([...symbolic.values(), headTarget])];
    if (pointedAt.some((t) => symbolic.has(t))) return null;
    const further = await Promise.all(pointedAt.filter((t) => !read.includes(t)).map(targetOf));
    if (further.some((t) => t !== "")) return null;
    const headExists = known.has(headTarget);
    const resolved = await Promise.all([...names, ...(headExists ? ["HEAD"] : [])].map((n) => this.resolve(gitDir, n)));
    if (resolved.some((r) => r === null)) return null;
    const refs = names.map((name, i) => ({ name, ...resolved[i]!, target: symbolic.get(name) ?? null }));
    const head = headExists ? resolved[names.length]! : { sha: null, peeled: null };
    return { head: { ...head, target: headTarget }, refs };
  }

  /** A ref's object and, for a tag, the object it peels to; null: one cat-file cannot follow (broken, dangling, gone meanwhile). */
  private async resolve(gitDir: string, name: string): Promise<{ sha: string; peeled: string | null } | null> {
    const found = await this.commits.object(gitDir, name);
    if (!found || found.type === "") return null;
    if (found.type !== "tag") return { sha: found.sha, peeled: null };
    const peeled = await this.commits.object(gitDir, `${found.sha}^{}`);
    return peeled && peeled.type !== "" && peeled.type !== "tag" ? { sha: found.sha, peeled: peeled.sha } : null;
  }
}

export interface LsRefsArgs {
  peel: boolean;
  symrefs: boolean;
  unborn: boolean;
  prefixes: string[];
}

/**
 * The arguments of a v2 request whose command is ls-refs, in the shape git sends (serve.c
 * `process_request`): `command=ls-refs`, the capabilities upload-pack takes with it (agent,
 * object-format=sha1, server-option), a delimiter and the arguments ls-refs knows (or none), a
 * flush, nothing after. Anything else (another command, a line upload-pack would refuse, an empty
 * packet) is null: upload-pack answers it, or refuses it in its own words.
 */
export function parseLsRefs(body: Buffer): LsRefsArgs | null {
  if (body.length > MAX_LS_REFS_REQUEST) return null;
  const packets: (string | "flush" | "delim")[] = [];
  let at = 0;
  while (at < body.length) {
    const head = body.subarray(at, at + 4).toString("latin1");
    if (!/^[0-9a-f]{4}$/.test(head)) return null;
    const length = parseInt(head, 16);
    if (length === 0 || length === 1) {
      packets.push(length === 0 ? "flush" : "delim");
      at += 4;
      continue;
    }
    if (length < 5 || at + length > body.length) return null;
    // The packet reader chomps one newline: git sends its capability lines without one, its arguments with.
    const text = body.subarray(at + 4, at + length).toString("utf8");
    packets.push(text.endsWith("\n") ? text.slice(0, -1) : text);
    at += length;
  }
  const args: LsRefsArgs = { peel: false, symrefs: false, unborn: false, prefixes: [] };
  let command = false;
  let i = 0;
  for (; i < packets.length; i++) {
    const p = packets[i]!;
    if (p === "flush" || p === "delim") break;
    if (p === "command=ls-refs" && !command) command = true;
    else if (!(p.startsWith("agent=") || p === "object-format=sha1" || p === "server-option" || p.startsWith("server-option="))) return null;
  }
  if (!command || i >= packets.length) return null;
  if (packets[i] === "delim") {
    for (i += 1; i < packets.length; i++) {
      const p = packets[i]!;
      if (p === "flush" || p === "delim") break;
      if (p === "peel") args.peel = true;
      else if (p === "symrefs") args.symrefs = true;
      else if (p === "unborn") args.unborn = true;
      else if (p.startsWith("ref-prefix ")) args.prefixes.push(p.slice("ref-prefix ".length));
      else return null;
    }
  }
  // The arguments end at a flush, the last packet of the body.
  return packets[i] === "flush" && i === packets.length - 1 ? args : null;
}
