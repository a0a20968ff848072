import { createOctokit, type GitHubClient } from "../adapters/github/client";
import type { Log } from "../ports/log";

/**
 * One GitHub client per window, built by the same factory as the CLI's (createOctokit: bounded
 * retries for safe requests, rate-limit waits, paced writes). Sharing it means the board, the
 * claims and the pickers share one throttle, so GitHub sees one polite client, not several.
 * A new client is made only when the API or the token changes (a new sign-in, a new apiUrl).
 */
export class WindowClient {
  private current: { key: string; client: GitHubClient } | null = null;

  constructor(private readonly log: Log) {}

  get(apiUrl: string, token: string): GitHubClient {
    const key = JSON.stringify([apiUrl, token]);
    if (this.current?.key === key) return this.current.client;
    this.current = { key, client: createOctokit({ apiUrl, token, log: this.log }) };
    return this.current.client;
  }
}

let windowClient: WindowClient | null = null;

/** The window's client for this API and token (the extension host is one window). */
export function windowOctokit(apiUrl: string, token: string, log: Log): GitHubClient {
  windowClient ??= new WindowClient(log);
  return windowClient.get(apiUrl, token);
}
