/**
 * The titles this Host last read from GitHub, per Target, so `start --offline` (which asks GitHub
 * nothing) can name a branch after its ticket: `<run root>/<owner>__<repo>/titles.json`, written by
 * every `board` and online `start`. Best effort: a cache that cannot be read or written is logged
 * and ignored, never a reason to refuse.
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { repoDirName } from "../core/claims/run-root-path";
import type { RepoRef } from "../ports/tracker";

const titlesSchema = z
  .object({
    version: z.literal(1),
    titles: z.record(z.string().regex(/^[1-9][0-9]{0,15}$/), z.object({ title: z.string().max(1024), at: z.string().max(40) }).strict()),
  })
  .strict();

type Titles = z.infer<typeof titlesSchema>;

export function titlesFile(runRoot: string, repo: RepoRef): string {
  return join(runRoot, repoDirName(repo), "titles.json");
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function read(file: string): Titles | { error: string } | null {
  // Like the run directories beside it, never read through a link.
  if (isLink(file) || isLink(dirname(file))) return { error: `${file} is a symbolic link; it is not read` };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return (error as { code?: string }).code === "ENOENT" ? null : { error: `cannot read ${file}: ${String(error)}` };
  }
  try {
    const parsed = titlesSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : { error: `${file} is not a titles file: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  } catch {
    return { error: `${file} is not JSON` };
  }
}

/** Adds or refreshes these titles. Returns why it could not, or null. */
export function rememberTitles(file: string, entries: { ticket: number; title: string }[], at: Date): string | null {
  if (entries.length === 0) return null;
  const current = read(file);
  const titles: Titles = current && !("error" in current) ? current : { version: 1, titles: {} };
  for (const e of entries) titles.titles[String(e.ticket)] = { title: e.title.slice(0, 1024), at: at.toISOString() };
  try {
    if (isLink(dirname(file))) return `${dirname(file)} is a symbolic link; nothing is written through it`;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // An exclusive create never follows a link; the rename replaces the name, never what it points to.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(titles, null, 2) + "\n", { flag: "wx", mode: 0o600 });
    renameSync(tmp, file);
    return null;
  } catch (error) {
    return `cannot write ${file}: ${String(error)}`;
  }
}

export type RecalledTitle = { kind: "known"; title: string; at: string } | { kind: "unknown"; why: string };

/** The title this Host last read for `ticket`, or why there is none. */
export function recallTitle(file: string, ticket: number): RecalledTitle {
  const current = read(file);
  if (current === null) return { kind: "unknown", why: "no board or online start has run on this Host for this Target" };
  if ("error" in current) return { kind: "unknown", why: current.error };
  const hit = current.titles[String(ticket)];
  return hit ? { kind: "known", title: hit.title, at: hit.at } : { kind: "unknown", why: `no board or online start on this Host has seen #${ticket}` };
}
