import { Refusal } from "../core/errors";

// Pure: no `vscode` import, so it is unit-tested without a VS Code (test/unit/vscode/).

export const GITHUB_API_URL = "https://api.github.com";

export type EnvTokenName = "TICKET_RUNNER_TOKEN" | "GITHUB_TOKEN";

export interface ConnectionSettings {
  /** Without a trailing slash. */
  readonly apiUrl: string;
  readonly apiUrlSource: "setting" | "TICKET_RUNNER_API_URL" | "default";
  readonly isGitHubDotCom: boolean;
  /** VS Code's authentication provider for this API: github.com or GitHub Enterprise. */
  readonly authProviderId: "github" | "github-enterprise";
  /** A token from the environment, used instead of VS Code's sign-in (sandbox, headless hosts). */
  readonly envToken?: { readonly name: EnvTokenName; readonly value: string };
}

/**
 * Where the extension talks to and with which token source.
 * - API: the `ticketRunner.apiUrl` user setting, else `TICKET_RUNNER_API_URL`, else api.github.com.
 * - Token: `TICKET_RUNNER_TOKEN` always wins (it is ours and explicit). `GITHUB_TOKEN` counts only
 *   for an API other than github.com: in a Codespace or a CI shell it is often a narrow token for
 *   some other repository, and silently preferring it to the person's sign-in would surprise.
 * A malformed URL is a Refusal naming the setting and the fix, not a guess.
 */
export function resolveConnectionSettings(setting: string | undefined, env: Record<string, string | undefined>): ConnectionSettings {
  const fromSetting = setting?.trim();
  const fromEnv = env["TICKET_RUNNER_API_URL"]?.trim();
  const [raw, apiUrlSource] = fromSetting
    ? [fromSetting, "setting" as const]
    : fromEnv
      ? [fromEnv, "TICKET_RUNNER_API_URL" as const]
      : [GITHUB_API_URL, "default" as const];

  const apiUrl = parseApiUrl(raw, apiUrlSource);
  const isGitHubDotCom = apiUrl === GITHUB_API_URL;
  const settings: ConnectionSettings = {
    apiUrl,
    apiUrlSource,
    isGitHubDotCom,
    authProviderId: isGitHubDotCom ? "github" : "github-enterprise",
  };
  const own = env["TICKET_RUNNER_TOKEN"]?.trim();
  if (own) return { ...settings, envToken: { name: "TICKET_RUNNER_TOKEN", value: own } };
  const github = env["GITHUB_TOKEN"]?.trim();
  if (github && !isGitHubDotCom) return { ...settings, envToken: { name: "GITHUB_TOKEN", value: github } };
  return settings;
}

function parseApiUrl(raw: string, source: ConnectionSettings["apiUrlSource"]): string {
  const where = source === "setting" ? "the `ticketRunner.apiUrl` setting" : "TICKET_RUNNER_API_URL";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Refusal("bad-config", `${where} is not a URL: "${raw}". Set it to an API root such as https://api.github.com or http://127.0.0.1:PORT.`, {
      next: source === "setting" ? "Open Settings and fix ticketRunner.apiUrl" : "unset TICKET_RUNNER_API_URL or correct it",
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Refusal("bad-config", `${where} must be an http(s) URL, not "${raw}".`, {
      next: source === "setting" ? "Open Settings and fix ticketRunner.apiUrl" : "unset TICKET_RUNNER_API_URL or correct it",
    });
  }
  if (url.username || url.password) {
    // A token in the URL would end up in logs and error messages.
    throw new Refusal("bad-config", `${where} must not carry credentials; use TICKET_RUNNER_TOKEN or sign in instead.`);
  }
  return url.toString().replace(/\/+$/, "");
}
