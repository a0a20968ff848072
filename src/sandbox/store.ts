/**
 * In-memory state, its persistence, and the lagged snapshots that model GitHub's eventual
 * consistency. Handlers validate first and mutate after, so a refused request changes nothing;
 * the server calls `changed()` after every successful write.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { JsonBytes } from "./json-bytes";
import type { RepoRec, SandboxState, UserRec } from "./model";
import { emptyState, FIRST_ID, repoKey } from "./model";

const stateFileSchema = z.object({ version: z.literal(1), nextId: z.number().int(), users: z.record(z.unknown()), repos: z.record(z.unknown()) }).passthrough();

interface Snapshot {
  at: number;
  state: SandboxState;
}

export class Store {
  state: SandboxState = emptyState();
  private readLagMs = 0;
  private snapshots: Snapshot[] = [];
  private saving: Promise<void> = Promise.resolve();
  /** The save queued behind the one being written, not begun: every change made until it begins is in it. */
  private queued: Promise<void> | null = null;
  /** The state file's folder was made by this store (made again only when a write finds it gone). */
  private folderMade = false;
  private writes = 0;
  private readonly json = new JsonBytes();
  private readonly statePath: string | null;

  constructor(dataDir: string | null) {
    this.statePath = dataDir ? path.join(dataDir, "state.json") : null;
  }

  async load(): Promise<void> {
    if (!this.statePath) return;
    let text: string;
    try {
      text = await fsp.readFile(this.statePath, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      throw e;
    }
    const parsed = stateFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      throw new Error(
        `sandbox state file ${this.statePath} is not a sandbox state (version 1): ${parsed.error.issues[0]?.message ?? "bad shape"}. Move it away or start with another --data folder.`,
      );
    }
    this.state = parsed.data as unknown as SandboxState;
    // A state saved before ids passed 2^32 keeps its old ids; new objects still number past 2^32.
    this.state.nextId = Math.max(this.state.nextId, FIRST_ID);
  }

  nextId(): number {
    this.state.nextId += 1;
    return this.state.nextId;
  }

  repo(owner: string, name: string): RepoRec | undefined {
    return this.state.repos[repoKey(owner, name)];
  }

  userByToken(token: string): UserRec | undefined {
    for (const u of Object.values(this.state.users)) if (u.token === token) return u;
    return undefined;
  }

  user(login: string): UserRec | undefined {
    const direct = this.state.users[login];
    if (direct) return direct;
    const lower = login.toLowerCase();
    return Object.values(this.state.users).find((u) => u.login.toLowerCase() === lower);
  }

  setReadLag(ms: number): void {
    this.readLagMs = ms;
    this.snapshots = ms > 0 ? [{ at: Date.now(), state: structuredClone(this.state) }] : [];
  }

  /** The state a lagged read sees: the newest snapshot at least `readLagMs` old. */
  view(): SandboxState {
    if (this.readLagMs <= 0) return this.state;
    const cutoff = Date.now() - this.readLagMs;
    let chosen: Snapshot | undefined;
    for (const s of this.snapshots) if (s.at <= cutoff) chosen = s;
    return (chosen ?? this.snapshots[0])?.state ?? this.state;
  }

  /** Called after every successful mutation: records a snapshot (when lagging) and persists. */
  changed(): Promise<void> {
    if (this.readLagMs > 0) {
      const now = Date.now();
      this.snapshots.push({ at: now, state: structuredClone(this.state) });
      // Keep only the newest snapshot older than the lag window, plus everything newer.
      const cutoff = now - this.readLagMs;
      let keepFrom = 0;
      for (let i = 0; i < this.snapshots.length; i++) if ((this.snapshots[i]?.at ?? 0) <= cutoff) keepFrom = i;
      this.snapshots = this.snapshots.slice(keepFrom);
    }
    return this.save();
  }

  /**
   * Atomic write: temp file, fsync, rename. Writes are chained so they land in order, and at most
   * one waits behind the one being written: a save asked for meanwhile joins it, since the state
   * is serialised when that write begins, after every change asked for until then. Each write
   * serialises and writes the whole state, and at K = 4 of `npm run bench:hosts` the writes of
   * eight Lanes meet (ADR 0492). Resolves once a write holding this call's changes is on disk.
   */
  save(): Promise<void> {
    const target = this.statePath;
    if (!target) return Promise.resolve();
    if (this.queued) return this.queued;
    const next = this.saving.then(() => {
      this.queued = null;
      return this.write(target, this.encode());
    });
    this.queued = next;
    this.saving = next.catch(() => undefined);
    return next;
  }

  /**
   * The state's UTF-8 bytes, in one buffer kept for every write (they run one at a time), not a
   * fresh Buffer for each as writeFile of a string makes (ADR 0492), and written an issue at a time
   * rather than as one JSON text (json-bytes.ts, ADR 0507). Depth 4: the state, its repositories,
   * a repository, its issues' list.
   */
  private encode(): Buffer {
    return this.json.encode(this.state, 4);
  }

  private async write(target: string, bytes: Buffer): Promise<void> {
    this.writes += 1;
    if (!this.folderMade) {
      await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      this.folderMade = true;
    }
    try {
      await writeAtomically(target, bytes);
    } catch (e) {
      // The folder removed under a running sandbox: made again, as every write used to.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await writeAtomically(target, bytes);
    }
  }

  /** State files written so far (the tests read it: saves asked for together share one). */
  get written(): number {
    return this.writes;
  }

  async flush(): Promise<void> {
    await this.saving;
  }

  reset(): void {
    this.state = emptyState();
    this.snapshots = this.readLagMs > 0 ? [{ at: Date.now(), state: structuredClone(this.state) }] : [];
  }
}

async function writeAtomically(target: string, bytes: Buffer): Promise<void> {
  const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
  // 0600: state.json holds every user's token.
  const fh = await fsp.open(tmp, "w", 0o600);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, target);
}
