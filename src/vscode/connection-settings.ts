import { parseApiUrl } from "../app/target";

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

  const apiUrl =
    apiUrlSource === "setting"
      ? parseApiUrl(raw, { where: "the `ticketRunner.apiUrl` setting", next: "Open Settings and fix ticketRunner.apiUrl" })
      : parseApiUrl(raw, { where: "TICKET_RUNNER_API_URL", next: "unset TICKET_RUNNER_API_URL or correct it" });
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
