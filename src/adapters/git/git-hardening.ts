/**
 * What keeps the Run's own git calls from running anything the code in a worktree planted
 * (ADR 0150). Worktrees share the clone's `.git`, so the Checks and the agent can write its
 * `config` and `hooks/`: every git call the Run makes in the clone overrides the keys that would
 * start a program or reach a network, and gets no token at all; the calls that reach the remote
 * run in a private git directory (remote-git.ts) whose config is the Run's own.
 */
import { GITHUB_TOKEN_VARS } from "../../core/token-vars";

/**
 * `-c` entries for every git call in the clone. A `-c` value is read after every config file, so
 * it wins over whatever the repository's config (or a file it includes) says.
 */
export const CLONE_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.sshCommand=false",
  "core.askPass=false",
  "core.editor=true",
  "sequence.editor=true",
  "credential.helper=",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "gc.auto=0",
  "maintenance.auto=false",
  // Nothing the Run does in the clone reaches a transport: a redirected URL has nowhere to go.
  "protocol.allow=never",
];

/** Variables that carry git config or a credential: never inherited by a git call of the Run. */
const DROPPED_PREFIXES = ["GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"];
const DROPPED = new Set<string>([
  ...GITHUB_TOKEN_VARS,
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_PARAMETERS",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
]);

/** `env` without the Run's tokens and without inherited git config or repository pointers. */
export function gitSafeEnv(env: NodeJS.ProcessEnv | Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || DROPPED.has(key) || DROPPED_PREFIXES.some((p) => key.startsWith(p))) continue;
    out[key] = value;
  }
  return out;
}
