/**
 * Every git call of the Run that reaches the remote (fetch, ls-remote, push) runs here, in a
 * private bare git directory the Run made itself (ADR 0150): its config is rewritten by the Run
 * before each call, it has no hooks, it reads no system or global config, and it borrows the
 * clone's objects through `objects/info/alternates`. Nothing a worktree can write (the clone's
 * `.git/config`, `.git/hooks/`, `~/.gitconfig`) takes part in a call that carries the token, and
 * the token is sent only to the one URL the Run computed: never to "origin" as the clone's config
 * says at that moment. Fetched objects reach the clone by being moved into its object store
 * (adopt-fetched.ts, ADR 0473), and the clone's ref is then set with one `update-ref`.
 */
import { rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { Failure } from "../../core/errors";
import type { GitCall } from "./git-runner";
import type { GitOutput } from "./git-runner";
import { GitRunner } from "./git-runner";
import { cloneStore } from "./clone-store";
import { SmartHttpClient } from "./smart-http-client";

export interface RemoteGitOptions {
  /** The clone's top level. */
  root: string;
  /** The remote's name in the clone, read once for its URL when `url` is not given. */
  remote: string;
  /** The URL the Run computed for the Target (e.g. from the API URL and owner/name). */
  url?: string;
  /** Sent as an `Authorization` header to `url` only, through the call's environment. */
  token?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

interface Prepared {
  dir: string;
  url: string;
  config: string;
  alternates: string;
  shallow: string;
}

/** Private directories still on disk, removed when this process exits. */
const made = new Set<string>();
let exitHook = false;

function removeAtExit(dir: string): void {
  made.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
}

/** The scheme git's `protocol.<name>.allow` knows a URL by. */
function protocolOf(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (m) return m[1]!.toLowerCase().replace(/^git\+ssh$|^ssh\+git$/, "ssh");
  if (/^[^/]+@[^/:]+:|^[^/:]+:[^/]/.test(url)) return "ssh"; // scp-like user@host:path
  return "file";
}

function configFor(url: string): string {
  return [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tbare = true",
    "\thooksPath = /dev/null",
    "\tfsmonitor = false",
    "[gc]",
    "\tauto = 0",
    "[maintenance]",
    "\tauto = false",
    "[fetch]",
    "\twriteCommitGraph = false",
    "[http]",
    // The header goes to the Run's URL only: never after a redirect to somewhere else.
    "\tfollowRedirects = false",
    "[protocol]",
    "\tallow = never",
    `[protocol "${protocolOf(url)}"]`,
    "\tallow = always",
    "",
  ].join("\n");
}

/**
 * Writes `content` to `path` unless it is there already, by rename: calls run side by side, and
 * a git reading the file while it is rewritten in place would see it empty.
 */
async function putBack(path: string, content: string): Promise<void> {
  if ((await readFile(path, "utf8").catch(() => null)) === content) return;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(temp, content, { mode: 0o600 });
  await rename(temp, path);
}

/**
 * Settings git reads from the environment for HTTP that a request from this process would not
 * honour (a proxy, a client certificate): with any of them set, the Run's HTTP goes through git
 * (ADR 0470). A CA bundle of git's (GIT_SSL_CAINFO, SSL_CERT_FILE) is not among them: a handshake
 * Node's own CAs cannot verify hands the remote to git for the rest of the process.
 */
const GIT_HTTP_ENV = /^(https?_proxy|all_proxy|GIT_SSL_CERT|GIT_SSL_KEY|GIT_SSL_CERT_PASSWORD_PROTECTED)$/i;

export class RemoteGit {
  private prepared: Promise<Prepared> | null = null;
  /** Set once a TLS handshake from this process failed: git, with its own CA store, talks to the remote from then on. */
  private httpOff = false;
  /** The reasons for leaving a talk to git already said in the Run's log (left-to-git.ts says a setting's once a Run). */
  private readonly saidToGit = new Set<string>();
  private readonly git: GitRunner;

  constructor(
    private readonly local: GitRunner,
    private readonly opts: RemoteGitOptions,
  ) {
    // No `-c`: the private config holds the settings, and `-c` would reach a local remote's receive-pack.
    this.git = new GitRunner({
      ...local.options,
      config: [],
      env: { ...opts.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      timeoutMs: opts.timeoutMs,
    });
  }

  /** The private git directory, whose objects are moved into the clone after a fetch (ADR 0473). */
  async dir(): Promise<string> {
    return (await this.prepare()).dir;
  }

  /**
   * The sha `ref` (refs/fetched/...) holds in the private directory, or null when it holds none.
   * The directory is the Run's own and a fetch writes its refs as loose files, so the file is read;
   * git is asked only when there is none (a packed ref). No token: nothing here reaches the remote.
   */
  async fetchedSha(ref: string): Promise<string | null> {
    if (!/^refs\/fetched\//.test(ref) || ref.split("/").some((part) => part === "" || part === "." || part === "..")) return null;
    const p = await this.prepare();
    const loose = await readFile(join(p.dir, ref), "utf8").catch(() => null);
    const sha = /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/.exec(loose ?? "")?.[1];
    if (sha) return sha;
    await this.restore(p);
    const res = await this.git.raw(["rev-parse", "--verify", "--quiet", "--end-of-options", ref], { cwd: p.dir });
    return res.code === 0 ? res.stdout.toString("utf8").trim() || null : null;
  }

  /** `git ls-remote` / `git push` / `git fetch` against the Run's URL: `args` carry `{url}` where the URL goes. */
  async call(args: (string | { url: true })[], call: Omit<GitCall, "cwd" | "input"> = {}): Promise<GitOutput> {
    const p = await this.prepare();
    await this.restore(p);
    const argv = args.map((a) => (typeof a === "string" ? a : p.url));
    return this.git.raw(argv, { ...call, cwd: p.dir, env: { ...this.headerEnv(p.url), ...call.env } });
  }

  /**
   * A git call in the private directory that does not reach the remote (`pack-objects` for a push
   * spoken from this process, ADR 0478; `unpack-objects` / `index-pack` of a pack fetched over
   * HTTP, ADR 0476): the directory as the Run made it, the clone's objects through its alternates
   * (a thin pack's bases), and no token in its environment.
   */
  async offline(args: string[], call: Omit<GitCall, "cwd"> = {}): Promise<GitOutput> {
    const p = await this.prepare();
    await this.restore(p);
    return this.git.raw(args, { ...call, cwd: p.dir });
  }

  /**
   * A smart HTTP client for the Run's URL (ADR 0470), or null when git must talk to it: not
   * http(s), credentials in the URL, an HTTP setting in the environment git would honour, or
   * TICKET_RUNNER_GIT_HTTP=git. It sends the same Authorization header as the git calls, to the
   * same URL only.
   */
  async smartHttp(): Promise<SmartHttpClient | null> {
    const choice = await this.smartHttpOrWhy();
    return "client" in choice ? choice.client : null;
  }

  /** smartHttp()'s client, or why git talks to the remote instead (for the Run's log: names, never values, ADR 0486). */
  async smartHttpOrWhy(): Promise<{ client: SmartHttpClient } | { why: string }> {
    const env = { ...process.env, ...this.opts.env };
    if (this.httpOff) return { why: "a TLS handshake from this process failed earlier in this Run" };
    if (env.TICKET_RUNNER_GIT_HTTP === "git") return { why: "TICKET_RUNNER_GIT_HTTP=git" };
    // The variable's name only: a proxy's URL may carry its own password.
    const setting = Object.entries(env).find(([k, v]) => v && GIT_HTTP_ENV.test(k))?.[0];
    if (setting) return { why: `${setting} is set (git honours it, this process would not)` };
    const url = this.opts.url ?? (await this.prepare()).url;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { why: `a ${protocolOf(url)} remote, not http(s)` };
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { why: `a ${protocolOf(url)} remote, not http(s)` };
    if (parsed.username || parsed.password) return { why: "credentials in the remote's URL" };
    const authorization = this.opts.token ? `Basic ${Buffer.from(`x-access-token:${this.opts.token}`).toString("base64")}` : null;
    return { client: new SmartHttpClient({ url, authorization, idleMs: this.opts.timeoutMs ?? 120_000, redact: (t) => this.local.redact(t) }) };
  }

  /** True the first time `note` is offered for this Run's remote, false after. */
  firstSaid(note: string): boolean {
    if (this.saidToGit.has(note)) return false;
    this.saidToGit.add(note);
    return true;
  }

  /** A TLS handshake from this process failed: git talks to the remote from now on. */
  httpFailed(): void {
    this.httpOff = true;
  }

  private headerEnv(url: string): Record<string, string> {
    if (!this.opts.token || protocolOf(url) === "file") return {};
    const basic = Buffer.from(`x-access-token:${this.opts.token}`).toString("base64");
    return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: `http.${url}.extraHeader`, GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
  }

  private prepare(): Promise<Prepared> {
    this.prepared ??= this.make().catch((error: unknown) => {
      this.prepared = null;
      throw error;
    });
    return this.prepared;
  }

  private async make(): Promise<Prepared> {
    const url = this.opts.url ?? (await this.originUrl());
    // Asked of git once a process for the clone, with the records' object writer (ADR 0400).
    const { commonDir, algorithm: format } = await cloneStore(this.local, this.opts.root);
    const dir = await mkdtemp(join(tmpdir(), "ticket-runner-remote-"));
    removeAtExit(dir);
    await this.git.text(["init", "--quiet", "--bare", "--template=", `--object-format=${format}`, dir], { cwd: dir });
    const p: Prepared = { dir, url, config: configFor(url), alternates: `${join(commonDir, "objects")}\n`, shallow: join(commonDir, "shallow") };
    return p;
  }

  /** Puts the private directory back as the Run made it: whatever wrote there meanwhile is undone. */
  private async restore(p: Prepared): Promise<void> {
    await putBack(join(p.dir, "config"), p.config);
    await putBack(join(p.dir, "objects", "info", "alternates"), p.alternates);
    await rm(join(p.dir, "hooks"), { recursive: true, force: true });
    // A shallow clone's boundary must be known here too, or git walks into history it lacks.
    const shallow = await readFile(p.shallow, "utf8").catch(() => null);
    if (shallow === null) await rm(join(p.dir, "shallow"), { force: true });
    else await putBack(join(p.dir, "shallow"), shallow);
  }

  /** The remote's URL as it was when this Run first needed it, without any rewriting of the clone's config. */
  private async originUrl(): Promise<string> {
    const res = await this.local.raw(["config", "--get", `remote.${this.opts.remote}.url`], { cwd: this.opts.root });
    const url = res.stdout.toString("utf8").trim();
    if (res.code !== 0 || !url) throw new Failure("git", `${this.opts.root} has no URL for the remote \`${this.opts.remote}\`.`);
    return protocolOf(url) === "file" && !url.startsWith("file://") && !isAbsolute(url) ? resolve(this.opts.root, url) : url;
  }

  /** Removes the private directory now (tests; a front door that is done). */
  async dispose(): Promise<void> {
    const p = this.prepared ? await this.prepared.catch(() => null) : null;
    this.prepared = null;
    if (!p) return;
    made.delete(p.dir);
    await rm(p.dir, { recursive: true, force: true });
  }
}
