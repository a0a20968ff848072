/**
 * The Target both front doors talk to: which repository, which API, which token. A git remote
 * URL is read by src/core/remote-url.ts (the one reading, for the adapters too).
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
    throw new Refusal(
      "bad-config",
      `${source.where} is not a URL: "${redactSecrets(raw.slice(0, 200))}". Set it to an API root such as https://api.github.com or http://127.0.0.1:PORT: ${source.next}.`,
      { next: source.next },
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Refusal(
      "bad-config",
      `${source.where} must be an http(s) URL, not a "${url.protocol.replace(/:$/, "")}" one. Set it to an API root such as https://api.github.com: ${source.next}.`,
      { next: source.next },
    );
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
  throw new Refusal(
    "bad-config",
    "No GitHub token: set TICKET_RUNNER_TOKEN, GH_TOKEN or GITHUB_TOKEN (a token of a user with write access to the Target), or pass --offline where the command allows it. Then run the command again, e.g. `ticket-runner board`.",
  );
}
