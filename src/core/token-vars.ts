/** The variables that carry the Run's GitHub token: kept from the agent (unless passGitHubToken) and always from the Checks. */
export const GITHUB_TOKEN_VARS = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "TICKET_RUNNER_TOKEN",
  "TICKET_RUNNER_SANDBOX_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
] as const;

/**
 * The variables that point a process at an IPC channel or a credential helper of the person's
 * session: VS Code's IPC sockets (its git askpass hands out the person's GitHub token), an
 * ssh-agent, a GPG agent, the D-Bus session bus, the display, askpass programs. The agent and the
 * Checks never get them, whatever `checkEnv` says (ADR 0340). A name ending in `*` is a prefix.
 */
export const IPC_VARS = [
  "VSCODE_IPC_HOOK*",
  "VSCODE_GIT_IPC_HANDLE",
  "VSCODE_GIT_ASKPASS_*",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "GNOME_KEYRING_CONTROL",
  "DBUS_SESSION_BUS_ADDRESS",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XAUTHORITY",
] as const;

/** Whether `name` is one of `list`'s names, or starts with one of its `PREFIX*` entries. */
export function namedIn(name: string, list: readonly string[]): boolean {
  return list.some((a) => (a.endsWith("*") ? name.startsWith(a.slice(0, -1)) : name === a));
}
