/**
 * RunRoot on the local filesystem. The exclusive create is Node's 'wx' flag (O_CREAT|O_EXCL): the
 * kernel checks and creates in one step, so of any number of simultaneous creates exactly one wins.
 * Keep the run root on a local disk: O_EXCL is not reliable on every network filesystem.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runJsonSchema, type RunJson } from "../core/schemas/run-json";
import { parseTicketNumber } from "../core/claims/marker";
import { repoDirName, runDirFor } from "../core/claims/run-root-path";
import type { LocalRun, RunJsonRead, RunRoot } from "../ports/run-root";
import type { RepoRef } from "../ports/tracker";

const RUN_FILE = "run.json";
const ARCHIVE = "superseded";

function errCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as { code?: string }).code : undefined;
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
    try {
      text = await readFile(join(dir, RUN_FILE), "utf8");
    } catch (error) {
      if (errCode(error) === "ENOENT") return { kind: "none" };
      return { kind: "invalid", reason: `cannot read ${join(dir, RUN_FILE)}: ${errCode(error) ?? String(error)}` };
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { kind: "invalid", reason: `${join(dir, RUN_FILE)} is not JSON (a create may still be writing it)` };
    }
    const parsed = runJsonSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { kind: "invalid", reason: `${join(dir, RUN_FILE)} does not match the run.json schema at ${issue?.path.join(".") || "(root)"}` };
    }
    return { kind: "ok", run: parsed.data };
  }

  async create(dir: string, run: RunJson): Promise<{ kind: "created" } | { kind: "exists"; current: RunJsonRead }> {
    await mkdir(dir, { recursive: true });
    try {
      await writeFile(join(dir, RUN_FILE), JSON.stringify(run, null, 2) + "\n", { flag: "wx" });
      return { kind: "created" };
    } catch (error) {
      if (errCode(error) !== "EEXIST") throw error;
      return { kind: "exists", current: await this.read(dir) };
    }
  }

  async update(dir: string, run: RunJson): Promise<void> {
    const tmp = join(dir, `.run.json.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    await writeFile(tmp, JSON.stringify(run, null, 2) + "\n", { flag: "wx" });
    await rename(tmp, join(dir, RUN_FILE));
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
