/**
 * The one reading of a git remote URL, for the CLI's `origin`, the extension's folders and the
 * adapters' links alike: scp-like (`git@host:owner/name.git`), https, ssh:// or the sandbox's
 * loopback http URL. Owner and name are the last two path segments and must be GitHub names; the
 * API is github.com's, a GitHub Enterprise's `/api/v3` on the same host, or the sandbox itself.
 * Pure: no I/O, so the core, the adapters and both front doors share it.
 */
import type { RepoRef } from "../ports/tracker";

const NAME = /^[A-Za-z0-9_.-]+$/;
const REPO_RE = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const SCP = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.*)$/;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const GITHUB_HOSTS = new Set(["github.com", "www.github.com", "ssh.github.com"]);

/** A path step (`.`, `..`) or an option-like name is never a repository, whatever the characters allow. */
function plainName(owner: string, repo: string): RepoRef | null {
  if (owner.startsWith(".") || owner.startsWith("-")) return null;
  if (repo === "" || repo === "." || repo === ".." || repo.startsWith("-")) return null;
  return { owner, repo };
}

/** `owner/name` as a person types it (`--repo`). */
export function parseRepo(text: string): RepoRef | null {
  const m = REPO_RE.exec(text.trim());
  return m ? plainName(m[1]!, m[2]!.replace(/\.git$/, "")) : null;
}

interface RemoteParts {
  /** Host with the port when the URL names one, lower case. */
  host: string;
  hostname: string;
  /** "http:", "https:", "ssh:", …; null for the scp-like form. */
  protocol: string | null;
  segments: string[];
}

function remoteParts(url: string): RemoteParts | null {
  const scp = SCP.exec(url);
  const segments = (path: string) =>
    path
      .replace(/^\/+|\/+$/g, "")
      .replace(/\.git$/, "")
      .split("/");
  if (scp?.[1] && !SCHEME.test(url)) return { host: scp[1].toLowerCase(), hostname: scp[1].toLowerCase(), protocol: null, segments: segments(scp[2] ?? "") };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!u.host) return null;
  return { host: u.host.toLowerCase(), hostname: u.hostname.toLowerCase(), protocol: u.protocol, segments: segments(u.pathname) };
}

/** The host (with port, when the URL names one) a git remote URL points at, or null. */
export function remoteHost(url: string): string | null {
  return remoteParts(url)?.host ?? null;
}

function apiUrlFor(parts: RemoteParts): string {
  if (GITHUB_HOSTS.has(parts.hostname)) return "https://api.github.com";
  const web = parts.protocol === "http:" || parts.protocol === "https:";
  if (web && LOOPBACK.has(parts.hostname)) {
    const prefix = parts.segments.length > 2 ? `/${parts.segments.slice(0, -2).join("/")}` : "";
    return `${parts.protocol}//${parts.host}${prefix}`;
  }
  // An ssh or scp-like remote's port is the ssh server's, not the API's.
  return `${parts.protocol === "http:" ? "http:" : "https:"}//${web ? parts.host : parts.hostname}/api/v3`;
}

/** owner/name and API URL from a remote URL, or null when it names no GitHub repository. */
export function parseRemoteUrl(url: string): { repo: RepoRef; apiUrl: string } | null {
  const parts = remoteParts(url.trim());
  if (!parts || parts.segments.length < 2) return null;
  const [owner, repo] = parts.segments.slice(-2);
  if (!owner || !repo || !NAME.test(owner) || !NAME.test(repo)) return null;
  const named = plainName(owner, repo);
  return named ? { repo: named, apiUrl: apiUrlFor(parts) } : null;
}

/**
 * Whether a remote URL belongs to the API we talk to: github.com for api.github.com, the same
 * host for GitHub Enterprise (`https://HOST/api/v3`) and for the sandbox
 * (`http://127.0.0.1:PORT`, whose git URLs share host and port).
 */
export function remoteMatchesApi(url: string, apiUrl: string): boolean {
  const host = remoteHost(url);
  if (!host) return false;
  const api = new URL(apiUrl);
  const apiHost = api.host.toLowerCase();
  if (apiHost === "api.github.com") return host === "github.com" || host === "ssh.github.com" || host === "ssh.github.com:443";
  return host === apiHost || host === api.hostname.toLowerCase();
}

/** A browsable link to a file on a branch, for refusals, when the remote is on github.com. */
export function githubBlobLink(url: string | null, branch: string, file: string): string | undefined {
  const remote = url ? parseRemoteUrl(url) : null;
  if (!remote || remote.apiUrl !== "https://api.github.com") return undefined;
  return `https://github.com/${remote.repo.owner}/${remote.repo.repo}/blob/${branch}/${file}`;
}
