/**
 * The Run lock on `ticket-runner/lock`: who may run on a Target. Taking it is a compare-and-swap
 * (a push with an explicit lease on the tip read); unlike the State branch it keeps its history,
 * so the remote shows who held the Target and when.
 *
 * lockScope "target": one file, lock.json, for the whole Target.
 * lockScope "host": one file per Host, lock-<hostId>.json, on the same branch (ADR 0032). A Run
 * still honours a held lock.json, and a target-scope Run honours every held per-host file.
 */
import { Failure } from "../../core/errors";
import type { Refusal } from "../../core/errors";
import { lockFileSchema } from "../../core/schemas/lock-file";
import type { LockFile } from "../../core/schemas/lock-file";
import { PRODUCT_VERSION } from "../../core/version";
import type { Host } from "../../ports/host";
import type { LockHolder, LockStanding } from "../../ports/workspace";
import { transact } from "./branch-txn";
import { corruptLockRefusal, elsewhereRefusal, freeMessage, heldMessage, LOCK_BRANCH, runningRefusal } from "./lock-words";
import { contentSummary } from "./records";
import type { RepoContext } from "./repo-context";
import { githubBlobLink } from "../../core/remote-url";
import { remoteUrl } from "./repo";
import type { TreeFiles } from "./snapshot";
import { listFiles, readBlobs, readTip, writeBlob } from "./snapshot";

export type LockScope = "target" | "host";
const TARGET_LOCK_FILE = "lock.json";
const HOST_LOCK_FILE = /^lock-[A-Za-z0-9._-]+\.json$/;
/**
 * Tries after a lost race for the lock branch. With lockScope "host" every Host's lock file is on
 * that one branch, so Hosts started together push it at once and each round has one winner: the
 * last of N loses N - 1 times. Forty covers a fleet of forty started in one moment (ADR 0450).
 */
const LOCK_RETRIES = 40;

export type AcquireResult =
  { ok: true; tookOverFrom: LockHolder[]; peers?: LockHolder[] } | { ok: false; standing: LockStanding; holder: LockHolder; refusal: Refusal };

function hostLockFile(hostId: string): string {
  return `lock-${hostId.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
}

type Parsed = { ok: true; lock: LockFile } | { ok: false; reason: string };

export function parseLockFile(content: Buffer | string): Parsed {
  const text = typeof content === "string" ? content : content.toString("utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `not JSON (${(e as Error).message}); content ${contentSummary(text)}` };
  }
  const parsed = lockFileSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      reason: `not a lock file (${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}); content ${contentSummary(text)}`,
    };
  return { ok: true, lock: parsed.data };
}

function holderOf(lock: LockFile): LockHolder | null {
  if (!lock.held) return null;
  return { host: lock.host, pid: lock.pid, command: lock.command, runId: lock.runId, startedAt: lock.startedAt, processStartTime: lock.processStartTime };
}

function heldJson(holder: LockHolder): string {
  const file: LockFile = { held: true, format: 1, ...holder, version: PRODUCT_VERSION };
  return `${JSON.stringify(file, null, 2)}\n`;
}

const FREE_JSON = `${JSON.stringify({ held: false }, null, 2)}\n`;

export class RunLock {
  readonly file: string;
  /** The lock branch as this process last pushed it, and the lock files it wrote: release tries it first (ADR 0400). */
  private last: { tip: string; files: TreeFiles } | undefined;
  private readonly wrote = new Map<string, Buffer>();
  private readonly remember = (tip: string, files: TreeFiles): void => {
    this.last = { tip, files: new Map(files) };
  };

  constructor(
    private readonly ctx: RepoContext,
    private readonly host: Host,
    readonly scope: LockScope = "target",
  ) {
    this.file = scope === "host" ? hostLockFile(host.identity().id) : TARGET_LOCK_FILE;
  }

  /** This Host's view: lock.json for scope "target", its own lock-<hostId>.json for scope "host". */
  async read(): Promise<LockFile> {
    const files = await listFiles(this.ctx, await readTip(this.ctx, LOCK_BRANCH));
    const sha = files.get(this.file);
    if (!sha) return { held: false };
    const parsed = parseLockFile((await readBlobs(this.ctx, [sha])).get(sha) ?? "");
    if (!parsed.ok) throw new Failure("invalid-record", `${this.file} on ${LOCK_BRANCH} cannot be read: ${parsed.reason}. It is left as it is.`);
    return parsed.lock;
  }

  /** How a held lock stands from this Host: running, abandoned (process gone or pid reused) or elsewhere. */
  async standingOf(holder: LockHolder, mine: LockHolder): Promise<LockStanding> {
    if (holder.runId === mine.runId && holder.host.id === mine.host.id) return "mine";
    if (holder.host.id !== this.host.identity().id) return "elsewhere";
    const started = await this.host.processStartTime(holder.pid);
    if (started === null) return "abandoned";
    if (holder.processStartTime !== null && started !== holder.processStartTime) return "abandoned";
    return "running";
  }

  /** Writes a lock file's blob, kept here by sha so that a release from the guess reads no blob back. */
  private async lockBlob(content: string): Promise<string> {
    const sha = await writeBlob(this.ctx, content);
    this.wrote.clear();
    this.wrote.set(sha, Buffer.from(content));
    return sha;
  }

  acquire(holder: LockHolder): Promise<AcquireResult> {
    return transact<AcquireResult>(this.ctx, LOCK_BRANCH, { retries: LOCK_RETRIES, keepHistory: true, pushed: this.remember }, async (files) => {
      const tookOver: LockHolder[] = [];
      const { relevant, peers } = await this.lockFiles(files);
      const others = peers.length > 0 ? { peers } : {};
      for (const [path, lock] of relevant) {
        const held = holderOf(lock);
        if (!held) continue;
        const standing = await this.standingOf(held, holder);
        if (standing === "mine") return { changed: false, message: "", value: { ok: true, tookOverFrom: [], ...others } };
        if (standing === "running") return { changed: false, message: "", value: { ok: false, standing, holder: held, refusal: runningRefusal(held) } };
        if (standing === "elsewhere") {
          const refusal = elsewhereRefusal(held, path, githubBlobLink(await remoteUrl(this.ctx), LOCK_BRANCH, path));
          return { changed: false, message: "", value: { ok: false, standing, holder: held, refusal } };
        }
        tookOver.push(held);
        if (path !== this.file) files.set(path, await writeBlob(this.ctx, FREE_JSON));
      }
      files.set(this.file, await this.lockBlob(heldJson(holder)));
      return { changed: true, message: heldMessage(holder, tookOver), value: { ok: true, tookOverFrom: tookOver, ...others } };
    });
  }

  /** Frees the lock if it still names `runId`; a lock a person freed or another Run took is left alone. */
  release(runId: string): Promise<{ released: boolean; detail: string }> {
    const guess = this.last;
    this.last = undefined;
    return transact<{ released: boolean; detail: string }>(this.ctx, LOCK_BRANCH, { retries: LOCK_RETRIES, keepHistory: true, guess }, async (files) => {
      const sha = files.get(this.file);
      const parsed = sha ? parseLockFile(this.wrote.get(sha) ?? (await readBlobs(this.ctx, [sha])).get(sha) ?? "") : null;
      if (!parsed || (parsed.ok && !parsed.lock.held)) return { changed: false, message: "", value: { released: false, detail: "The lock was already free." } };
      if (!parsed.ok)
        return { changed: false, message: "", value: { released: false, detail: `${this.file} cannot be read (${parsed.reason}); left as it is.` } };
      const held = holderOf(parsed.lock)!;
      if (held.runId !== runId)
        return { changed: false, message: "", value: { released: false, detail: `The lock now names run ${held.runId}, not ${runId}; left as it is.` } };
      files.set(this.file, await writeBlob(this.ctx, FREE_JSON));
      const who = this.host.identity();
      return {
        changed: true,
        message: freeMessage(`Released by run ${runId} on ${who.kind === "cloud" ? "the cloud host" : "the workstation"} \`${who.name}\`.`),
        value: { released: true, detail: `Released the lock of run ${runId}.` },
      };
    });
  }

  /** A person's "free it": writes {"held": false} whoever holds it, corrupt files included. */
  unlock(note: string): Promise<{ previous: string }> {
    return transact(this.ctx, LOCK_BRANCH, { retries: LOCK_RETRIES, keepHistory: true }, async (files) => {
      const sha = files.get(this.file);
      const before = sha ? ((await readBlobs(this.ctx, [sha])).get(sha)?.toString("utf8") ?? "") : FREE_JSON;
      const parsed = parseLockFile(before);
      const previous = !parsed.ok ? `unreadable (${parsed.reason})` : parsed.lock.held ? `held by run ${parsed.lock.runId}` : "free";
      if (parsed.ok && !parsed.lock.held) return { changed: false, message: "", value: { previous } };
      files.set(this.file, await writeBlob(this.ctx, FREE_JSON));
      return { changed: true, message: freeMessage(`Freed by hand (${previous}): ${note}`), value: { previous } };
    });
  }

  /**
   * The lock files this Run must respect, parsed (an unreadable one refuses the take, left in place),
   * and, with lockScope "host", the other Hosts' held locks, its peers (an unreadable one is no peer),
   * oldest first. One read of the blobs for both.
   */
  private async lockFiles(files: TreeFiles): Promise<{ relevant: [string, LockFile][]; peers: LockHolder[] }> {
    const paths = [...files.keys()].filter((p) => p === TARGET_LOCK_FILE || p === this.file || (this.scope === "target" && HOST_LOCK_FILE.test(p)));
    const peerPaths = this.scope === "host" ? [...files.keys()].filter((p) => p !== this.file && HOST_LOCK_FILE.test(p)) : [];
    const blobs = await readBlobs(
      this.ctx,
      [...paths, ...peerPaths].map((p) => files.get(p)!),
    );
    const relevant: [string, LockFile][] = [];
    for (const path of paths) {
      const parsed = parseLockFile(blobs.get(files.get(path)!) ?? "");
      if (!parsed.ok) throw corruptLockRefusal(path, parsed.reason, githubBlobLink(await remoteUrl(this.ctx), LOCK_BRANCH, path));
      relevant.push([path, parsed.lock]);
    }
    const me = this.host.identity().id;
    const peers = peerPaths
      .map((path) => parseLockFile(blobs.get(files.get(path)!) ?? ""))
      .map((parsed) => (parsed.ok ? holderOf(parsed.lock) : null))
      .filter((h): h is LockHolder => h !== null && h.host.id !== me)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    return { relevant, peers };
  }
}
