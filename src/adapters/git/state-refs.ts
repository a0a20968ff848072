/**
 * State records, one ref per ticket on the Target's remote (ADR 0180): `refs/ticket-runner/state/<n>`
 * holds `ticket-<n>.json` and the ticket's kept transcripts under `ticket-<n>/<runId>/`. Each change
 * is a commit on top of the ticket's last one, so `git log` of the ref tells the ticket's story, and
 * no two tickets' writes ever contend for one ref. Removing the State deletes the ref.
 *
 * Older versions kept every ticket on one branch, `ticket-runner/state` (ADR 0031). It is still
 * read: a ticket with no ref of its own is read from there, its first change moves it to its own
 * ref and takes it off the old branch, and removing a State takes it off both.
 */
import { Failure } from "../../core/errors";
import { stateFileSchema, stateRecordRef } from "../../core/schemas/state-file";
import type { StateFile } from "../../core/schemas/state-file";
import type { PushResult, StateRead } from "../../ports/workspace";
import { scrubJsonValue } from "../secret-scan";
import { transact } from "./branch-txn";
import { takeTurn } from "./turns";
import { fetchRecords, lsRemoteRefs, readPaths, swapRef, swapRefs } from "./record-refs";
import type { RefMove } from "./record-refs";
import { parseStateFile, serializeState, stateFilePath, stateFileTicket } from "./records";
import type { RepoContext } from "./repo-context";
import type { TreeFiles } from "./snapshot";
import { buildTree, commitTree, listFiles, readBlobs, writeBlob } from "./snapshot";
import type { TranscriptFile } from "./transcripts";
import { loadTranscripts, ticketTranscriptPrefix, transcriptDir } from "./transcripts";

const STATE_REF_PREFIX = "refs/ticket-runner/state/";
/** The one branch older versions kept every State on; read, drained, never written anew. */
const LEGACY_STATE_BRANCH = "ticket-runner/state";
const LEGACY_REF = `refs/heads/${LEGACY_STATE_BRANCH}`;
/** What a full read of the State records lists on the remote. */
export const STATE_LIST_PATTERNS = [`${STATE_REF_PREFIX}*`, LEGACY_REF];
const REF_TICKET = /^refs\/ticket-runner\/state\/([1-9][0-9]*)$/;
/** Reads that meet a ref moving under them read again, this many times. */
const READ_TRIES = 4;
/** Commits and blobs remembered by sha (content-addressed, so never stale); cleared past this many. */
const CACHE_LIMIT = 512;
/**
 * How long a full listing answers "no record" for a ticket it did not show: the time from a Run's
 * sweep to its first takes. A record another Host made later and then let go (lease expired,
 * released) takes far longer than this to become ours to take.
 */
const LISTING_FRESH_MS = 30_000;

export interface StateRefsOptions {
  /** Retries after a lost race on the ticket's ref. Up to three. */
  retries?: number;
}

/** A ticket's own files (State file and transcripts) out of a tree that may hold other tickets'. */
function ticketFiles(files: TreeFiles, ticket: number): TreeFiles {
  const prefix = ticketTranscriptPrefix(ticket);
  return new Map([...files].filter(([p]) => p === stateFilePath(ticket) || p.startsWith(prefix)));
}

interface TicketView {
  /** The ticket's ref on the remote, or null. */
  tip: string | null;
  /** The ticket's files: from its ref, or else from the old branch. */
  files: TreeFiles;
  /** The old branch's tip when it still holds files of this ticket. */
  legacyTip: string | null;
  /** Guessed from the last full listing, not read for this write. */
  fromListing?: true;
}

export class StateRefs {
  private readonly retries: number;
  /**
   * What this process already knows by sha: the files of record commits it made or listed, and
   * State blobs it wrote or read. Every git process costs the Run a fork; a ticket's own writes
   * then need no object check, no tree listing and no blob read.
   */
  private readonly trees = new Map<string, TreeFiles>();
  private readonly blobs = new Map<string, Buffer>();
  /**
   * Each ticket's record as this process last read or wrote it. A write starts from it and skips
   * the listing: the push's lease still refuses it if the remote moved since, and the write then
   * reads again, so a stale guess costs one try, never a lost change.
   */
  private readonly views = new Map<number, TicketView>();
  /**
   * The tickets with a ref of their own in the last full listing (readAll), when the old branch was
   * absent then, and when it was made; with every ticket read or written since, which is never guessed. For LISTING_FRESH_MS after it, a ticket not in it is read as
   * new with no listing of its own, and its first write's lease ("must not exist") refuses the push
   * if a record came meanwhile (ADR 0400).
   */
  private listing: { seen: Set<number>; at: number } | null = null;

  constructor(
    private readonly ctx: RepoContext,
    opts: StateRefsOptions = {},
  ) {
    this.retries = opts.retries ?? 3;
  }

  /** The remote's refs (one listing), with their objects here; read again when one moves meanwhile. */
  private async listed(patterns: string[]): Promise<Map<string, string>> {
    for (let attempt = 1; ; attempt++) {
      const refs = await lsRemoteRefs(this.ctx, patterns);
      if ((await fetchRecords(this.ctx, refs, new Set(this.trees.keys()))) === "ok") return refs;
      if (attempt >= READ_TRIES) throw new Failure("git", `State records on the remote kept moving while they were read (${READ_TRIES} tries)`);
    }
  }

  private async view(ticket: number): Promise<TicketView> {
    this.listing?.seen.add(ticket);
    const ref = stateRecordRef(ticket);
    const refs = await this.listed([ref, LEGACY_REF]);
    const tip = refs.get(ref) ?? null;
    const legacy = refs.get(LEGACY_REF) ?? null;
    const old = legacy ? ticketFiles(await listFiles(this.ctx, legacy), ticket) : new Map<string, string>();
    const legacyTip = old.size > 0 ? legacy : null;
    const view = { tip, files: tip ? await this.filesOf(tip) : old, legacyTip };
    this.remember(this.views, ticket, view);
    return view;
  }

  private remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, value);
  }

  private async filesOf(commit: string): Promise<TreeFiles> {
    const known = this.trees.get(commit);
    if (known) return new Map(known);
    const files = await listFiles(this.ctx, commit);
    this.remember(this.trees, commit, files);
    return new Map(files);
  }

  private async blob(sha: string): Promise<Buffer> {
    const known = this.blobs.get(sha);
    if (known) return known;
    const blob = (await readBlobs(this.ctx, [sha])).get(sha) ?? Buffer.alloc(0);
    this.remember(this.blobs, sha, blob);
    return blob;
  }

  /**
   * Every State record; `listed`: the remote's refs for STATE_LIST_PATTERNS, listed a moment ago by
   * another read, with their objects fetched here unless that read fetched them (`fetched`, ADR 0495).
   */
  async readAll(listed?: { refs: Map<string, string>; fetched: boolean }): Promise<StateRead> {
    const given = listed && (listed.fetched || (await fetchRecords(this.ctx, listed.refs, new Set(this.trees.keys()))) === "ok") ? listed.refs : null;
    const refs = given ?? (await this.listed(STATE_LIST_PATTERNS));
    const own = [...refs].flatMap(([ref, sha]) => {
      const m = REF_TICKET.exec(ref);
      return m ? [{ ticket: Number(m[1]), sha }] : [];
    });
    this.listing = refs.has(LEGACY_REF) ? null : { seen: new Set(own.map((o) => o.ticket)), at: Date.now() };
    const contents = await readPaths(
      this.ctx,
      own.map((o) => `${o.sha}:${stateFilePath(o.ticket)}`),
    );
    const found: { ticket: number; path: string; content: Buffer }[] = [];
    own.forEach((o, i) => {
      const content = contents[i];
      if (content) found.push({ ticket: o.ticket, path: `${stateRecordRef(o.ticket)}:${stateFilePath(o.ticket)}`, content });
    });
    const legacy = refs.get(LEGACY_REF);
    if (legacy) {
      const mine = new Set(own.map((o) => o.ticket));
      const named = [...(await listFiles(this.ctx, legacy))].flatMap(([path, sha]) => {
        const ticket = stateFileTicket(path);
        return ticket === null || mine.has(ticket) ? [] : [{ path, sha, ticket }];
      });
      const blobs = await readBlobs(
        this.ctx,
        named.map((n) => n.sha),
      );
      for (const n of named) found.push({ ticket: n.ticket, path: `${LEGACY_STATE_BRANCH}:${n.path}`, content: blobs.get(n.sha) ?? Buffer.alloc(0) });
    }
    const read: StateRead = { files: [], unreadable: [] };
    for (const { ticket, path, content } of found.sort((a, b) => a.ticket - b.ticket)) {
      const parsed = parseStateFile(path, ticket, content);
      if (parsed.ok) read.files.push(parsed.state);
      else read.unreadable.push({ path, reason: parsed.reason, writtenBy: parsed.writtenBy, ticket });
    }
    return read;
  }

  async readOne(ticket: number): Promise<StateFile | null> {
    const unlisted = this.unlisted(ticket);
    // Guessed once: the write that follows (a take's first) goes from it, and its lease checks it.
    this.listing?.seen.add(ticket);
    if (unlisted) this.remember(this.views, ticket, unlisted);
    return this.current(unlisted ?? (await this.view(ticket)), ticket);
  }

  /** Paths of the transcripts kept for a ticket, relative to the root of its record. */
  async transcripts(ticket: number): Promise<string[]> {
    const { files } = await this.view(ticket);
    const prefix = ticketTranscriptPrefix(ticket);
    return [...files.keys()].filter((p) => p.startsWith(prefix)).sort();
  }

  /**
   * Applies `change` to the ticket's State as it is on the remote now, and pushes the result.
   * null removes the State file and the ticket's kept transcripts. A file this version cannot read
   * is never rewritten: the change throws instead.
   */
  change(ticket: number, change: (current: StateFile | null) => StateFile | null): Promise<StateFile | null> {
    return this.transact(ticket, async (files, view) => {
      const current = await this.current(view, ticket);
      const wanted = change(current);
      // A State file is public on the remote: its text (the title) is scanned like a comment (ADR 0160).
      const next = wanted === null ? null : (await scrubJsonValue(wanted, this.ctx.git.secretsEnv())).value;
      if (next === null) {
        const had = files.size > 0;
        files.clear();
        return { changed: had, message: `Ticket #${ticket}: State removed`, value: null };
      }
      return this.setFile(ticket, files, next);
    });
  }

  /** Puts a State file (already scrubbed) into a record's files: its blob written, checked against the schema first. */
  private async setFile(ticket: number, files: TreeFiles, next: unknown): Promise<{ changed: boolean; message: string; value: StateFile }> {
    const path = stateFilePath(ticket);
    const valid = stateFileSchema.safeParse(next);
    if (!valid.success || valid.data.ticket !== ticket) {
      throw new Failure(
        "internal",
        `refused to write an invalid State for #${ticket}: ${valid.success ? `names ticket ${valid.data.ticket}` : valid.error.message}`,
      );
    }
    const text = serializeState(valid.data);
    const sha = await writeBlob(this.ctx, text);
    this.remember(this.blobs, sha, Buffer.from(text));
    const changed = files.get(path) !== sha;
    files.set(path, sha);
    return { changed, message: `Ticket #${ticket}: ${valid.data.state} (run ${valid.data.runId})`, value: valid.data };
  }

  /**
   * Writes `value` as the ticket's State in the push `push` makes (ADR 0433): `push` is given the
   * record's move (its new commit, leased on the tip this process knows) and reports `recorded`
   * when it went. Given no move (null) when the tip is not known from this process's own last
   * write or read, the ticket still has files on the old shared branch, the record holds a State
   * this version cannot read, or nothing would change: the caller then writes it the usual way.
   */
  along(ticket: number, value: StateFile, push: (move: RefMove | null) => Promise<PushResult>): Promise<PushResult> {
    const ref = stateRecordRef(ticket);
    return takeTurn(`${this.ctx.root}\0${this.ctx.remote}\0${ref}`, async () => {
      const view = this.views.get(ticket);
      if (!view?.tip || view.legacyTip) return push(null);
      this.listing?.seen.add(ticket);
      const files = new Map(view.files);
      let out: { changed: boolean; message: string };
      try {
        await this.current(view, ticket);
        out = await this.setFile(ticket, files, (await scrubJsonValue(value, this.ctx.git.secretsEnv())).value);
      } catch {
        return push(null);
      }
      if (!out.changed) return push(null);
      const commit = await commitTree(this.ctx, await buildTree(this.ctx, files), [view.tip], out.message);
      this.remember(this.trees, commit, new Map(files));
      const pushed = await push({ ref, commit, expected: view.tip });
      if (pushed.recorded) this.remember(this.views, ticket, { tip: commit, files, legacyTip: null });
      return pushed;
    });
  }

  /** Copies transcripts to ticket-<n>/<runId>/ in the ticket's record. Files missing on disk are reported, not fatal. */
  async keepTranscripts(ticket: number, runId: string, files: TranscriptFile[]): Promise<{ path: string; kept: string[]; missing: string[] }> {
    const dir = transcriptDir(ticket, runId);
    const loaded = await loadTranscripts(files, this.ctx.git.secretsEnv());
    const blobs: [string, string][] = [];
    for (const f of loaded.found) blobs.push([`${dir}${f.name}`, await writeBlob(this.ctx, f.content)]);
    await this.transact(ticket, async (tree) => {
      let changed = false;
      for (const [path, sha] of blobs) {
        changed ||= tree.get(path) !== sha;
        tree.set(path, sha);
      }
      return { changed, message: `Ticket #${ticket}: transcripts of run ${runId}`, value: undefined };
    });
    return { path: dir, kept: loaded.found.map((f) => f.name), missing: loaded.missing };
  }

  /**
   * Compare-and-swap on the ticket's own ref: read, edit, commit on the tip, push with a lease; a
   * lost race reads again. An empty result deletes the ref. Changes to one ticket in one process take turns.
   */
  private transact<T>(ticket: number, edit: (files: TreeFiles, view: TicketView) => Promise<{ changed: boolean; message: string; value: T }>): Promise<T> {
    const ref = stateRecordRef(ticket);
    return takeTurn(`${this.ctx.root}\0${this.ctx.remote}\0${ref}`, async () => {
      // Written (or tried) here: from now on this ticket is read, or known from the write, never guessed.
      const guessed = this.unlisted(ticket);
      this.listing?.seen.add(ticket);
      for (let attempt = 0; attempt <= this.retries; attempt++) {
        const guess = attempt === 0 ? (this.views.get(ticket) ?? guessed) : undefined;
        const view = guess ?? (await this.view(ticket));
        this.views.delete(ticket);
        const files = new Map(view.files);
        const out = await edit(files, view);
        // "Nothing to write" is no push, so no lease checks it: on a ticket guessed new from an older listing, read it first.
        if (!out.changed && guess?.fromListing) continue;
        if (!out.changed) return out.value;
        if (files.size === 0) {
          // Off the old branch first: were it left there, the ticket's old State would come back.
          if (view.legacyTip) await this.drainLegacy(ticket);
          if (!view.tip || (await swapRef(this.ctx, ref, null, view.tip)) === "pushed") {
            this.remember(this.views, ticket, { tip: null, files: new Map(), legacyTip: null });
            return out.value;
          }
        } else {
          const tree = await buildTree(this.ctx, files);
          const commit = await commitTree(this.ctx, tree, view.tip ? [view.tip] : [], out.message);
          this.remember(this.trees, commit, new Map(files));
          if ((await swapRef(this.ctx, ref, commit, view.tip)) === "pushed") {
            // Its own ref now wins over the old branch; taking it off there keeps the old branch draining.
            const drained = view.legacyTip
              ? await this.drainLegacy(ticket).then(
                  () => true,
                  () => false,
                )
              : true;
            // Only a drained ticket is known to be off the old branch; otherwise the next write reads it again.
            if (drained) this.remember(this.views, ticket, { tip: commit, files, legacyTip: null });
            return out.value;
          }
        }
        // Lost the race: back off a little, with jitter so the losers do not collide again in step.
        await new Promise((r) => setTimeout(r, (attempt + 1) * (20 + Math.random() * 60)));
      }
      throw new Failure("git", `Other writers kept moving ${ref} on the remote; gave up after ${this.retries + 1} tries. Nothing was overwritten.`);
    });
  }

  /**
   * Removes the ticket's record and deletes `also` in one push, all or none, each under its own
   * lease (ADR 0431). Tried only from a record whose tip this process knows (its own last write or
   * read) and that has nothing on the old shared branch; null when not tried, "lost" when a lease
   * refused (nothing moved: the caller removes the record the usual way, which reads it again).
   */
  removeAlong(ticket: number, also: { ref: string; expected: string }): Promise<"pushed" | "lost" | null> {
    const ref = stateRecordRef(ticket);
    return takeTurn(`${this.ctx.root}\0${this.ctx.remote}\0${ref}`, async () => {
      const view = this.views.get(ticket);
      if (!view?.tip || view.legacyTip) return null;
      this.listing?.seen.add(ticket);
      // A record this version cannot read is never rewritten, nor removed (as change() refuses it).
      await this.current(view, ticket);
      this.views.delete(ticket);
      const moved = await swapRefs(this.ctx, [
        { ref, commit: null, expected: view.tip },
        { ref: also.ref, commit: null, expected: also.expected },
      ]);
      if (moved === "pushed") this.remember(this.views, ticket, { tip: null, files: new Map(), legacyTip: null });
      return moved;
    });
  }

  /** A ticket the last full listing did not show, as new: a guess that the write's lease checks. */
  private unlisted(ticket: number): TicketView | undefined {
    if (!this.listing || this.listing.seen.has(ticket) || Date.now() - this.listing.at > LISTING_FRESH_MS) return undefined;
    return { tip: null, files: new Map(), legacyTip: null, fromListing: true };
  }

  /** Takes a ticket's files off the old shared branch (a parentless snapshot there, as before). */
  private drainLegacy(ticket: number): Promise<void> {
    return transact(this.ctx, LEGACY_STATE_BRANCH, { retries: this.retries, keepHistory: false }, async (files) => {
      const doomed = [...ticketFiles(files, ticket).keys()];
      for (const p of doomed) files.delete(p);
      return { changed: doomed.length > 0, message: `Ticket #${ticket}: moved to ${stateRecordRef(ticket)}`, value: undefined };
    });
  }

  private async current(view: TicketView, ticket: number): Promise<StateFile | null> {
    const path = stateFilePath(ticket);
    const sha = view.files.get(path);
    if (!sha) return null;
    const blob = await this.blob(sha);
    const where = view.tip ? stateRecordRef(ticket) : LEGACY_STATE_BRANCH;
    const parsed = parseStateFile(`${where}:${path}`, ticket, blob);
    if (parsed.ok) return parsed.state;
    const by = parsed.writtenBy ? `, written by ${parsed.writtenBy}` : "";
    throw new Failure("invalid-record", `#${ticket} has a State file this version cannot use${by}: ${parsed.reason}. It is left as it is on ${where}.`);
  }
}
