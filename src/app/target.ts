/**
 * The Target both front doors talk to: which repository, which API, which token. One reading of
 * a git remote URL for the CLI's `origin` and the extension's folders alike: scp-like
 * (`git@host:owner/name.git`), https, ssh:// or the sandbox's loopback http URL. Owner and name are
 * the last two path segments and must be GitHub names; the API is github.com's, a GitHub
 * Enterprise's `/api/v3` on the same host, or the sandbox itself.
 */
import type { Config } from "../core/schemas/config";
import { Refusal } from "../core/errors";
import { redactSecrets } from "../core/redact";
import type { RepoRef } from "../ports/tracker";

export interface Target {
  repo: RepoRef;
  apiUrl: string;
  /** null when no token variable is set (offline commands do not need one). */
  token: string | null;
  /** The checkout's top level, or null when the command does not run inside one. */
  checkout: string | null;
  config: Config;
  runRoot: string;
}

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
  const segments = (path: string) => path.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "").split("/");
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

/** Where an API URL came from, for the words: `--api-url`, `TICKET_RUNNER_API_URL`, the extension's setting. */
export interface ApiUrlSource {
  /** "--api-url", "TICKET_RUNNER_API_URL", "the `ticketRunner.apiUrl` setting". */
  where: string;
  /** What to do instead, e.g. the same command without the option. */
  next: string;
}

/**
 * The one reading of an API URL, for both front doors (ADR 0221): an http(s) URL of an API root,
 * without a trailing slash. Credentials, a query or a fragment are refused: the token comes from
 * the environment or the sign-in, and a URL is printed in errors and logs. What is refused is never
 * echoed with its secret.
 */
export function parseApiUrl(raw: string, source: ApiUrlSource): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Refusal("bad-config", `${source.where} is not a URL: "${redactSecrets(raw.slice(0, 200))}". Set it to an API root such as https://api.github.com or http://127.0.0.1:PORT: ${source.next}.`, { next: source.next });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Refusal("bad-config", `${source.where} must be an http(s) URL, not a "${url.protocol.replace(/:$/, "")}" one. Set it to an API root such as https://api.github.com: ${source.next}.`, { next: source.next });
  }
  if (url.username || url.password || url.search || url.hash) {
    // Said without the URL: it carries what must not be printed.
    throw new Refusal(
      "bad-config",
      `${source.where} must not carry credentials, a query or a fragment (the token comes from TICKET_RUNNER_TOKEN, GH_TOKEN or GITHUB_TOKEN, or the sign-in, never the URL). Give the bare API root, e.g. https://${url.host}${url.pathname.replace(/\/+$/, "")}: ${source.next}.`,
      { next: source.next },
    );
  }
  return url.toString().replace(/\/+$/, "");
}

/** The token from the environment only, never argv: TICKET_RUNNER_TOKEN, then GH_TOKEN, then GITHUB_TOKEN. */
export function tokenFrom(env: Record<string, string | undefined>): string | null {
  for (const name of ["TICKET_RUNNER_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"]) {
    const v = env[name]?.trim();
    if (v) return v;
  }
  return null;
}

export function requireToken(target: Pick<Target, "token">): string {
  if (target.token) return target.token;
  throw new Refusal("bad-config", "No GitHub token: set TICKET_RUNNER_TOKEN, GH_TOKEN or GITHUB_TOKEN (a token of a user with write access to the Target), or pass --offline where the command allows it. Then run the command again, e.g. `ticket-runner board`.");
}
