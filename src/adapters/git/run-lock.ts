/**
 * The Run lock: who may run on a Target. Taking it is a compare-and-swap (a push with an explicit
 * lease on the tip read); unlike the State records it keeps its history, so the remote shows who
 * held the Target and when.
 *
 * lockScope "target": `lock.json` on the shared branch `ticket-runner/lock`.
 * lockScope "host": `lock-<hostId>.json` on the Host's own branch `ticket-runner/locks/<hostId>`
 * (ADR 0450; older versions kept it on the shared branch, where it is still honoured). No two
 * Hosts push one ref, so Hosts started together take their locks side by side. A Run of either
 * scope honours the other's held locks, read in one view (lock-view.ts), and reads again after its
 * own push: of two Runs of different scopes taking theirs at the same moment, at least one sees the
 * other and stands down, so they never run together.
 */
import { Failure } from "../../core/errors";
import type { Refusal } from "../../core/errors";
import type { LockFile } from "../../core/schemas/lock-file";
import { PRODUCT_VERSION } from "../../core/version";
import type { Host } from "../../ports/host";
import type { LockHolder, LockStanding } from "../../ports/workspace";
import { transact } from "./branch-txn";
import { corruptLockRefusal, elsewhereRefusal, freeMessage, heldMessage, LOCK_BRANCH, runningRefusal } from "./lock-words";
import type { LockEntry, LockView } from "./lock-view";
import { HOST_LOCK_FILE, hostLockBranch, hostLockFile, lockEntry, parseLockFile, readLockView, TARGET_LOCK_FILE } from "./lock-view";
import type { RepoContext } from "./repo-context";
import { githubBlobLink } from "../../core/remote-url";
import { remoteUrl } from "./repo";
import type { TreeFiles } from "./snapshot";
import { listFiles, readBlobs, writeBlob } from "./snapshot";

export type LockScope = "target" | "host";

/**
 * Tries after a lost race for the shared branch: Target-wide Runs, and freeing an older version's
 * per-host file. Hosts started together all pushed it before ADR 0450; forty rounds, one winner
 * each, still cover a fleet of older Runs started in one moment.
 */
const SHARED_RETRIES = 40;
/** How old the State listing that rode with a take may be when the sweep uses it. */
const LISTED_FRESH_MS = 5_000;
/** A Host's own branch is pushed only by this Host's Runs. */
const OWN_RETRIES = 5;

export type AcquireResult =
  { ok: true; tookOverFrom: LockHolder[]; peers?: LockHolder[] } | { ok: false; standing: LockStanding; holder: LockHolder; refusal: Refusal };

type Refused = Extract<AcquireResult, { ok: false }>;

function holderOf(lock: LockFile): LockHolder | null {
  if (!lock.held) return null;
  return { host: lock.host, pid: lock.pid, command: lock.command, runId: lock.runId, startedAt: lock.startedAt, processStartTime: lock.processStartTime };
}

function heldJson(holder: LockHolder): string {
  const file: LockFile = { held: true, format: 1, ...holder, version: PRODUCT_VERSION };
  return `${JSON.stringify(file, null, 2)}\n`;
}

const FREE_JSON = `${JSON.stringify({ held: false }, null, 2)}\n`;

/** What the lock files a Run must honour say: it holds already, another holds it, or it may take it (freeing `abandoned`). */
type Judgement = { kind: "mine" } | { kind: "refused"; value: Refused } | { kind: "clear"; abandoned: { entry: LockEntry; holder: LockHolder }[] };

export class RunLock {
  readonly file: string;
  readonly branch: string;
  /** The lock's branch as this process last pushed it, and the lock files it wrote: release tries it first (ADR 0400). */
  private last: { tip: string; files: TreeFiles } | undefined;
  private readonly wrote = new Map<string, Buffer>();
  private readonly remember = (tip: string, files: TreeFiles): void => {
    this.last = { tip, files: new Map(files) };
  };

  /** The last take's listing of `alsoList` (the State records'), for the read that follows it; `fetched`: their objects came with it. */
  private listedWithTake: { at: number; refs: Map<string, string>; fetched: boolean } | undefined;

  constructor(
    private readonly ctx: RepoContext,
    private readonly host: Host,
    readonly scope: LockScope = "target",
    /** Patterns listed in the same `ls-remote` as the read after a take (the State records', for the sweep that follows). */
    private readonly alsoList: string[] = [],
  ) {
    const id = host.identity().id;
    this.file = scope === "host" ? hostLockFile(id) : TARGET_LOCK_FILE;
    this.branch = scope === "host" ? hostLockBranch(id) : LOCK_BRANCH;
  }

  /** This Host's lock: lock.json for scope "target"; for scope "host" its own file (an older version's on the shared branch too), the held one first. */
  async read(): Promise<LockFile> {
    const own = this.ownEntries(await readLockView(this.ctx));
    for (const e of own)
      if (e.unreadable !== null) throw new Failure("invalid-record", `${e.path} on ${e.branch} cannot be read: ${e.unreadable}. It is left as it is.`);
    return own.find((e) => e.lock?.held)?.lock ?? own[0]?.lock ?? { held: false };
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

  async acquire(holder: LockHolder): Promise<AcquireResult> {
    if (this.scope !== "host") return this.acquireShared(holder, await readLockView(this.ctx));
    // Only the shared branch and this Host's own decide a per-host take: the other Hosts' files,
    // which name its peers, are fetched and read once, after its push (ADR 0495).
    return this.acquireOwn(holder, await readLockView(this.ctx, { shared: true, hostBranches: (branch) => branch === this.branch }));
  }

  /** The other Hosts' held locks as the remote has them now, oldest first. */
  async peers(): Promise<LockHolder[]> {
    return this.peersOf(await readLockView(this.ctx)).peers ?? [];
  }

  /** Frees the lock if it still names `runId`; a lock a person freed or another Run took is left alone. */
  release(runId: string): Promise<{ released: boolean; detail: string }> {
    const guess = this.last;
    this.last = undefined;
    const retries = this.scope === "host" ? OWN_RETRIES : SHARED_RETRIES;
    return transact<{ released: boolean; detail: string }>(this.ctx, this.branch, { retries, keepHistory: true, guess }, async (files) => {
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

  /** A person's "free it": writes {"held": false} whoever holds it, corrupt files included (for scope "host", an older version's file too). */
  async unlock(note: string): Promise<{ previous: string }> {
    const own = await this.freeByHand(this.branch, this.file, note, this.scope === "host" ? OWN_RETRIES : SHARED_RETRIES);
    if (this.scope !== "host") return own;
    const legacy = await this.freeByHand(LOCK_BRANCH, this.file, note, SHARED_RETRIES);
    return own.previous === "free" ? legacy : own;
  }

  private freeByHand(branch: string, path: string, note: string, retries: number): Promise<{ previous: string }> {
    return transact(this.ctx, branch, { retries, keepHistory: true }, async (files) => {
      const sha = files.get(path);
      if (!sha) return { changed: false, message: "", value: { previous: "free" } };
      const before = (await readBlobs(this.ctx, [sha])).get(sha)?.toString("utf8") ?? "";
      const parsed = parseLockFile(before);
      const previous = !parsed.ok ? `unreadable (${parsed.reason})` : parsed.lock.held ? `held by run ${parsed.lock.runId}` : "free";
      if (parsed.ok && !parsed.lock.held) return { changed: false, message: "", value: { previous } };
      files.set(path, await writeBlob(this.ctx, FREE_JSON));
      return { changed: true, message: freeMessage(`Freed by hand (${previous}): ${note}`), value: { previous } };
    });
  }

  /**
   * Scope "host": lock.json and this Host's files decide; its own branch is taken; the shared one is
   * read again after, with every Host's. `view` has read no other Host's branch.
   */
  private async acquireOwn(holder: LockHolder, view: LockView): Promise<AcquireResult> {
    const judged = await this.judge(
      view.entries.filter((e) => (e.branch === LOCK_BRANCH && (e.path === TARGET_LOCK_FILE || e.path === this.file)) || e.branch === this.branch),
      holder,
    );
    if (judged.kind === "refused") return judged.value;
    if (judged.kind === "mine") return { ok: true, tookOverFrom: [], ...this.peersOf(await this.readBack({ shared: true })) };
    const onShared = judged.abandoned.filter((a) => a.entry.branch === LOCK_BRANCH);
    // Rare: this Host's abandoned lock.json, or its file from an older version, is freed on the shared branch first.
    if (onShared.length > 0) await this.freeAbandoned(LOCK_BRANCH, onShared, holder);
    const tip = view.hostTips.get(this.branch) ?? null;
    const guess = { tip, files: await listFiles(this.ctx, tip) };
    const took = await transact<AcquireResult>(
      this.ctx,
      this.branch,
      { retries: OWN_RETRIES, keepHistory: true, pushed: this.remember, guess },
      async (files) => {
        // Another Run of this Host may have taken it since the view: judged again on each try.
        const sha = files.get(this.file);
        const entry = sha ? [lockEntry(this.branch, this.file, (await readBlobs(this.ctx, [sha])).get(sha) ?? "", sha)] : [];
        const again = await this.judge(entry, holder);
        if (again.kind === "refused") return { changed: false, message: "", value: again.value };
        if (again.kind === "mine") return { changed: false, message: "", value: { ok: true, tookOverFrom: [] } };
        files.set(this.file, await this.lockBlob(heldJson(holder)));
        // The own branch's holder is judged on each try; the view's judgement adds only what it freed on the shared branch.
        const tookOver = [...onShared, ...again.abandoned].map((a) => a.holder);
        return { changed: true, message: heldMessage(holder, tookOver), value: { ok: true, tookOverFrom: tookOver } };
      },
    );
    if (!took.ok) return took;
    // Read again: a Target-wide Run that took lock.json meanwhile either sees this lock and stands down, or is seen here.
    const after = await this.readBack({ shared: true });
    const refused = await this.standDownIfHeld(
      after.entries.filter((e) => e.branch === LOCK_BRANCH && e.path === TARGET_LOCK_FILE),
      holder,
    );
    return refused ?? { ...took, ...this.peersOf(after) };
  }

  /** Scope "target": lock.json and every per-host lock decide; lock.json is taken; the per-host ones are read again after. */
  private async acquireShared(holder: LockHolder, view: LockView): Promise<AcquireResult> {
    const ownBranches = view.entries.filter((e) => e.branch !== LOCK_BRANCH);
    const before = await this.judge(ownBranches, holder);
    if (before.kind === "refused") return before.value;
    const guess = { tip: view.shared.tip, files: new Map(view.shared.files) };
    const known = new Map(view.entries.flatMap((e) => (e.branch === LOCK_BRANCH && e.sha ? [[e.sha, e] as const] : [])));
    const took = await transact<AcquireResult>(
      this.ctx,
      LOCK_BRANCH,
      { retries: SHARED_RETRIES, keepHistory: true, pushed: this.remember, guess },
      async (files) => {
        const paths = [...files.keys()].filter((p) => p === TARGET_LOCK_FILE || HOST_LOCK_FILE.test(p));
        // The view already read the blobs it listed: only those written since are read here.
        const unread = paths.map((p) => files.get(p)!).filter((sha) => !known.has(sha));
        const blobs = await readBlobs(this.ctx, unread);
        const entries = paths.map((path): LockEntry => {
          const sha = files.get(path)!;
          const seen = known.get(sha);
          return seen ? { ...seen, path } : lockEntry(LOCK_BRANCH, path, blobs.get(sha) ?? "", sha);
        });
        const judged = await this.judge(entries, holder);
        if (judged.kind === "refused") return { changed: false, message: "", value: judged.value };
        if (judged.kind === "mine") return { changed: false, message: "", value: { ok: true, tookOverFrom: [] } };
        for (const a of judged.abandoned) if (a.entry.path !== this.file) files.set(a.entry.path, await writeBlob(this.ctx, FREE_JSON));
        files.set(this.file, await this.lockBlob(heldJson(holder)));
        const tookOver = judged.abandoned.map((a) => a.holder);
        return { changed: true, message: heldMessage(holder, tookOver), value: { ok: true, tookOverFrom: tookOver } };
      },
    );
    if (!took.ok) return took;
    if (before.kind === "clear") for (const a of before.abandoned) await this.freeAbandoned(a.entry.branch, [a], holder);
    // Read again: a per-host Run that took its lock meanwhile either sees lock.json and stands down, or is seen here.
    const after = await this.readBack({ shared: false });
    const refused = await this.standDownIfHeld(
      after.entries.filter((e) => e.branch !== LOCK_BRANCH),
      holder,
    );
    if (refused) return refused;
    return { ...took, tookOverFrom: [...took.tookOverFrom, ...(before.kind === "clear" ? before.abandoned.map((a) => a.holder) : [])] };
  }

  /** After its take: when `entries` (the other scope's locks) hold the Target, the take is released and refused (an unreadable one, released and thrown). */
  private async standDownIfHeld(entries: LockEntry[], holder: LockHolder): Promise<Refused | null> {
    let judged: Judgement;
    try {
      judged = await this.judge(entries, holder);
    } catch (error) {
      await this.release(holder.runId);
      throw error;
    }
    if (judged.kind !== "refused") return null;
    await this.release(holder.runId);
    return judged.value;
  }

  /** The read after a take, with the State records' listing riding along. */
  private async readBack(opts: { shared: boolean }): Promise<LockView> {
    const view = await readLockView(this.ctx, { ...opts, alsoList: this.alsoList });
    this.listedWithTake = this.alsoList.length > 0 ? { at: Date.now(), refs: view.alsoListed, fetched: view.alsoFetched } : undefined;
    return view;
  }

  /**
   * The refs of `alsoList` the last take listed, once, if that was a moment ago (null: list them
   * anew); `fetched`: their objects are here already, fetched with the lock files'.
   */
  takeListed(): { refs: Map<string, string>; fetched: boolean } | null {
    const listed = this.listedWithTake;
    this.listedWithTake = undefined;
    return listed && Date.now() - listed.at < LISTED_FRESH_MS ? { refs: listed.refs, fetched: listed.fetched } : null;
  }

  /** Standing of each held lock file in `entries`: an unreadable one refuses the take (left in place). */
  private async judge(entries: LockEntry[], holder: LockHolder): Promise<Judgement> {
    const abandoned: { entry: LockEntry; holder: LockHolder }[] = [];
    for (const entry of entries) {
      if (entry.unreadable !== null) throw corruptLockRefusal(entry.path, entry.unreadable, entry.branch, await this.link(entry));
      const held = entry.lock ? holderOf(entry.lock) : null;
      if (!held) continue;
      const standing = await this.standingOf(held, holder);
      if (standing === "mine") return { kind: "mine" };
      if (standing === "running") return { kind: "refused", value: { ok: false, standing, holder: held, refusal: runningRefusal(held) } };
      if (standing === "elsewhere") {
        const refusal = elsewhereRefusal(held, entry.path, entry.branch, await this.link(entry));
        return { kind: "refused", value: { ok: false, standing, holder: held, refusal } };
      }
      abandoned.push({ entry, holder: held });
    }
    return { kind: "clear", abandoned };
  }

  /** Writes {"held": false} over abandoned lock files of this Host on `branch`, each only if it still names the same Run. */
  private freeAbandoned(branch: string, abandoned: { entry: LockEntry; holder: LockHolder }[], by: LockHolder): Promise<void> {
    return transact<void>(this.ctx, branch, { retries: SHARED_RETRIES, keepHistory: true }, async (files) => {
      let changed = false;
      for (const a of abandoned) {
        const sha = files.get(a.entry.path);
        const parsed = sha ? parseLockFile((await readBlobs(this.ctx, [sha])).get(sha) ?? "") : null;
        if (!parsed?.ok || !parsed.lock.held || parsed.lock.runId !== a.holder.runId) continue;
        files.set(a.entry.path, await writeBlob(this.ctx, FREE_JSON));
        changed = true;
      }
      const runs = abandoned.map((a) => `run ${a.holder.runId} (pid ${a.holder.pid})`).join(", ");
      return { changed, message: freeMessage(`Taken over by run ${by.runId} from ${runs}, whose process on this Host is gone.`), value: undefined };
    });
  }

  /** The other Hosts' held locks in `view` (their own branches, and older versions' files on the shared one), oldest first (ADR 0441). */
  private peersOf(view: LockView): { peers?: LockHolder[] } {
    const me = this.host.identity().id;
    const peers = view.entries
      .filter((e) => e.branch !== LOCK_BRANCH || HOST_LOCK_FILE.test(e.path))
      .map((e) => (e.lock ? holderOf(e.lock) : null))
      .filter((h): h is LockHolder => h !== null && h.host.id !== me)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId));
    return peers.length > 0 ? { peers } : {};
  }

  /** This Host's own lock files in `view`: lock.json for scope "target"; its branch's file, then its older file on the shared branch, for scope "host". */
  private ownEntries(view: LockView): LockEntry[] {
    if (this.scope !== "host") return view.entries.filter((e) => e.branch === LOCK_BRANCH && e.path === TARGET_LOCK_FILE);
    return [...view.entries.filter((e) => e.branch === this.branch), ...view.entries.filter((e) => e.branch === LOCK_BRANCH && e.path === this.file)];
  }

  private async link(entry: LockEntry): Promise<string | undefined> {
    return githubBlobLink(await remoteUrl(this.ctx), entry.branch, entry.path);
  }

  /** Writes a lock file's blob, kept here by sha so that a release from the guess reads no blob back. */
  private async lockBlob(content: string): Promise<string> {
    const sha = await writeBlob(this.ctx, content);
    this.wrote.clear();
    this.wrote.set(sha, Buffer.from(content));
    return sha;
  }
}
