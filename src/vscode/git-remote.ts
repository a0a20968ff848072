import { readFile, stat } from "node:fs/promises";
import { join, resolve, dirname } from "node:path";

// No `vscode` import: unit-tested without a VS Code (test/unit/vscode/).

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

/** The host (with port, when the URL names one) a git remote URL points at, or null. */
export function remoteHost(url: string): string | null {
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)/.exec(url); // git@github.com:owner/repo.git
  if (scp?.[1] && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return scp[1].toLowerCase();
  try {
    const parsed = new URL(url);
    return parsed.host.toLowerCase() || null;
  } catch {
    return null;
  }
}

/**
 * Whether a remote URL belongs to the API the extension talks to: github.com for
 * api.github.com, the same host for GitHub Enterprise (`https://HOST/api/v3`) and for the
 * sandbox (`http://127.0.0.1:PORT`, whose git URLs share host and port).
 */
export function remoteMatchesApi(url: string, apiUrl: string): boolean {
  const host = remoteHost(url);
  if (!host) return false;
  const api = new URL(apiUrl);
  const apiHost = api.host.toLowerCase();
  if (apiHost === "api.github.com") return host === "github.com" || host === "ssh.github.com" || host === "ssh.github.com:443";
  return host === apiHost || host === api.hostname.toLowerCase();
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
