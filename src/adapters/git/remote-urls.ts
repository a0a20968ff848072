import { readFile, stat } from "node:fs/promises";
import { join, resolve, dirname } from "node:path";

// The remotes a folder's git config names, read as a file: no git process (the extension's
// activation must stay cheap). What a URL means is src/app/target.ts's.

/** Every `url = ...` of every `[remote "..."]` section of a git config file. */
export function remoteUrlsFromGitConfig(text: string): string[] {
  const urls: string[] = [];
  let inRemote = false;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line.startsWith("[")) {
      inRemote = /^\[remote\s+"[^"]*"\]$/.test(line);
      continue;
    }
    const m = inRemote ? /^url\s*=\s*(.+)$/.exec(line) : null;
    if (m?.[1]) urls.push(m[1].trim());
  }
  return urls;
}

/**
 * The remote URLs of the repository at `folder`, read from its git config without running git
 * (activation must stay cheap). Follows a worktree's `.git` file to the main repository's config.
 */
export async function readRemoteUrls(folder: string): Promise<string[]> {
  const gitDir = await findGitDir(folder);
  if (!gitDir) return [];
  const common = await readFile(join(gitDir, "commondir"), "utf8").then(
    (t) => resolve(gitDir, t.trim()),
    () => gitDir,
  );
  const config = await readFile(join(common, "config"), "utf8").catch(() => "");
  return remoteUrlsFromGitConfig(config);
}

async function findGitDir(folder: string): Promise<string | null> {
  const dotGit = join(folder, ".git");
  const info = await stat(dotGit).catch(() => null);
  if (!info) return null;
  if (info.isDirectory()) return dotGit;
  const text = await readFile(dotGit, "utf8").catch(() => "");
  const m = /^gitdir:\s*(.+)$/m.exec(text);
  return m?.[1] ? resolve(dirname(dotGit), m[1].trim()) : null;
}
