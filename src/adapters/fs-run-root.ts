/**
 * RunRoot on the local filesystem. The exclusive create writes the whole record to a private temp
 * file and then hard-links it to run.json: link(2) fails with EEXIST when the name is taken, so of
 * any number of simultaneous creates exactly one wins, and run.json appears whole or not at all.
 * (Opening run.json with O_CREAT|O_EXCL and then writing was exclusive too, but a Run killed between
 * the open and the write left an empty run.json that blocked the ticket on this Host for good.)
 * Keep the run root on a local disk: link and O_EXCL are not reliable on every network filesystem.
 */
import { randomBytes } from "node:crypto";
import { constants, renameSync, writeFileSync } from "node:fs";
import { link, lstat, mkdir, open, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runJsonSchema, type RunJson } from "../core/schemas/run-json";
import { parseTicketNumber } from "../core/claims/marker";
import { repoDirName, runDirFor } from "../core/claims/run-root-path";
import type { LocalFiles } from "../core/board/local-claims";
import type { LocalRun, RunJsonRead, RunRoot } from "../ports/run-root";
import type { RepoRef } from "../ports/tracker";
import { assertNotLink, safeRunDir } from "./run-root-dirs";

const RUN_FILE = "run.json";
/** Filesystems that cannot hard-link say so with one of these; there the create falls back to O_EXCL. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);
const ARCHIVE = "superseded";

function errCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as { code?: string }).code : undefined;
}

function tempName(dir: string): string {
  return join(dir, `.run.json.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}

function stamp(at: string): string {
  return at.replace(/[:.]/g, "-");
}

export class FsRunRoot implements RunRoot {
  constructor(readonly root: string) {}

  dirFor(repo: RepoRef, ticket: number): string {
    return runDirFor(this.root, repo, ticket);
  }

  async read(dir: string): Promise<RunJsonRead> {
    let text: string;
    const file = join(dir, RUN_FILE);
    const linked = await lstat(dir).then(
      (st) => st.isSymbolicLink(),
      () => false,
    );
    const fileLinked = await lstat(file).then(
      (st) => st.isSymbolicLink(),
      () => false,
    );
    if (linked || fileLinked)
      return { kind: "invalid", reason: `${linked ? dir : file} is a symbolic link; Ticket Runner does not follow links in its run root` };
    let handle;
    try {
      // Non-blocking: a FIFO put at run.json would otherwise hold the Run waiting for a writer for ever.
      handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    } catch (error) {
      if (errCode(error) === "ENOENT") return { kind: "none" };
      return { kind: "invalid", reason: `cannot read ${file}: ${errCode(error) ?? String(error)}` };
    }
    try {
      if (!(await handle.stat()).isFile()) return { kind: "invalid", reason: `${file} is not a regular file` };
      text = await handle.readFile("utf8");
    } catch (error) {
      return { kind: "invalid", reason: `cannot read ${file}: ${errCode(error) ?? String(error)}` };
    } finally {
      await handle.close();
    }
    // create() and update() only ever put a whole file in place, so a torn file is damage, not a write in flight.
    if (text.trim() === "") return { kind: "invalid", reason: `${file} is empty (left by an older Ticket Runner killed while creating it)` };
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { kind: "invalid", reason: `${file} is not JSON` };
    }
    const parsed = runJsonSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { kind: "invalid", reason: `${file} does not match the run.json schema at ${issue?.path.join(".") || "(root)"}` };
    }
    return { kind: "ok", run: parsed.data };
  }

  async create(dir: string, run: RunJson): Promise<{ kind: "created" } | { kind: "exists"; current: RunJsonRead }> {
    safeRunDir(this.root, dir);
    const text = JSON.stringify(run, null, 2) + "\n";
    const tmp = tempName(dir);
    await writeFile(tmp, text, { flag: "wx" });
    try {
      await link(tmp, join(dir, RUN_FILE));
      return { kind: "created" };
    } catch (error) {
      const code = errCode(error);
      if (code === "EEXIST") return { kind: "exists", current: await this.read(dir) };
      if (code === undefined || !NO_LINKS.has(code)) throw error;
      return this.createWithoutLinks(dir, text);
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
  }

  private async createWithoutLinks(dir: string, text: string): Promise<{ kind: "created" } | { kind: "exists"; current: RunJsonRead }> {
    try {
      await writeFile(join(dir, RUN_FILE), text, { flag: "wx" });
      return { kind: "created" };
    } catch (error) {
      if (errCode(error) !== "EEXIST") throw error;
      return { kind: "exists", current: await this.read(dir) };
    }
  }

  /**
   * In place, not through `fs/promises` (ADR 0508): written at each take and each Stage's start, a
   * small file on the local disk, where each threadpool trip cost more of the Run's CPU than the call.
   */
  async update(dir: string, run: RunJson): Promise<void> {
    safeRunDir(this.root, dir);
    const tmp = tempName(dir);
    writeFileSync(tmp, JSON.stringify(run, null, 2) + "\n", { flag: "wx" });
    renameSync(tmp, join(dir, RUN_FILE));
  }

  async moveAside(dir: string, note: { reason: string; at: string; by?: string }, opts: { ifSession?: string } = {}): Promise<string | null> {
    if (opts.ifSession !== undefined) {
      const current = await this.read(dir);
      if (current.kind !== "ok" || current.run.session !== opts.ifSession) return null;
    }
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n !== ARCHIVE);
    } catch (error) {
      if (errCode(error) === "ENOENT") return null;
      throw error;
    }
    if (names.length === 0) return null;
    safeRunDir(this.root, dir);
    assertNotLink(join(dir, ARCHIVE), this.root);
    // Two moves in one millisecond (a take-over right after a yield) must not share a folder.
    let archive = join(dir, ARCHIVE, stamp(note.at));
    try {
      await mkdir(join(dir, ARCHIVE), { recursive: true });
      await mkdir(archive);
    } catch (error) {
      if (errCode(error) !== "EEXIST") throw error;
      archive = `${archive}-${randomBytes(3).toString("hex")}`;
      await mkdir(archive);
    }
    const ordered = [...names.filter((n) => n !== RUN_FILE), ...names.filter((n) => n === RUN_FILE)];
    await writeFile(join(archive, "moved-aside.json"), JSON.stringify(note, null, 2) + "\n", { flag: "wx" });
    for (const name of ordered) {
      try {
        await rename(join(dir, name), join(archive, name));
      } catch (error) {
        // Moved by someone else in the meantime (a concurrent move-aside): nothing is lost.
        if (errCode(error) !== "ENOENT") throw error;
      }
    }
    return archive;
  }

  async list(repo: RepoRef): Promise<LocalRun[]> {
    const base = join(this.root, repoDirName(repo));
    let names: string[];
    try {
      names = await readdir(base);
    } catch (error) {
      if (errCode(error) === "ENOENT") return [];
      throw error;
    }
    const out: LocalRun[] = [];
    for (const name of names) {
      const m = /^issue-(.+)$/.exec(name);
      const ticket = m ? parseTicketNumber(m[1] ?? "") : null;
      if (ticket === null) continue;
      const dir = join(base, name);
      const read = await this.read(dir);
      if (read.kind !== "none") out.push({ ticket, dir, read });
    }
    return out.sort((a, b) => a.ticket - b.ticket);
  }
}

/** The board's look at this Host's disk: whether a worktree is there, whether a run left a transcript. */
export const fsLocalFiles: LocalFiles = {
  exists: (path) =>
    stat(path).then(
      () => true,
      () => false,
    ),
  hasTranscript: async (runDir) => {
    const names = await readdir(runDir, { recursive: true }).catch(() => [] as string[]);
    return names.some((n) => n.endsWith(".transcript.jsonl"));
  },
};
