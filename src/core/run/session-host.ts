/**
 * Agent sessions live on the Host that ran them (Claude Code in ~/.claude, Codex in CODEX_HOME,
 * Gemini CLI in its home): the State file says which Host holds the sessions it names, and a
 * take-up on another Host starts those Stages afresh, saying so, rather than asking its agent for a
 * session it cannot have (ADR 0250).
 */
import type { StateFile } from "../schemas/state-file";
import type { NotedSessions } from "../schemas/run-json";
import type { Host } from "../../ports/host";
import type { Log } from "../../ports/log";

/** What these need of a Run (its RunEnv has it): this Host and the log. */
interface SessionEnv {
  deps: { host: Pick<Host, "identity">; log: Log };
}

export type SessionHost = NonNullable<StateFile["sessionsOn"]>;

/** This Host, as the State file names the holder of its sessions. */
export function sessionHost(env: SessionEnv): SessionHost {
  const { id, name } = env.deps.host.identity();
  return { id, name };
}

/** The sessions of `state` this Host can continue: all of them here (or when no Host is named), none elsewhere. */
export function sessionsHere(env: SessionEnv, ticket: number, state: StateFile | null): Record<string, string> {
  const sessions = { ...(state?.sessions ?? {}) };
  const on = state?.sessionsOn;
  const here = sessionHost(env);
  if (!on || on.id === here.id || Object.keys(sessions).length === 0) return sessions;
  const named = Object.entries(sessions)
    .map(([stage, id]) => `${stage} ${id}`)
    .join(", ");
  env.deps.log.info(
    `#${ticket}: the agent session(s) it was interrupted in (${named}) live on Host ${on.name}, not on this one (${here.name}); those Stages start a fresh session here`,
  );
  return {};
}

/**
 * The sessions a take-up continues: this Host's own note (its local claim, ADR 0452) when it is
 * newer than the State file, for the note saw every session the ticket's last Stages named here;
 * else the State file's, as sessionsHere reads them.
 */
export function sessionsAtTakeUp(env: SessionEnv, ticket: number, state: StateFile | null, noted: NotedSessions | undefined): Record<string, string> {
  if (noted && (!state || Date.parse(noted.at) > Date.parse(state.updatedAt))) return { ...noted.stages };
  return sessionsHere(env, ticket, state);
}
