/**
 * A claim's agent sessions, noted in this Host's local claim (run.json) as a Stage's agent names
 * them (ADR 0452). The sessions live on this Host's disk (ADR 0250), so the record a killed Run
 * leaves for the next Run here lives there too: a file write, where a State write was a push to the
 * remote twice a ticket. The State file still gets them with its next write (a release, a hand-off,
 * the next record of the ticket's progress).
 */
import type { HeldClaim } from "../claim-gate";
import { agentSessionsSchema } from "../schemas/state-file";
import type { ClaimContext } from "./claim-context";

const STAGES: readonly string[] = agentSessionsSchema.keySchema.options;

export async function noteSessions(ctx: ClaimContext, claim: HeldClaim, stages: Readonly<Record<string, string>>): Promise<void> {
  const local = await ctx.options.runRoot.read(claim.runDir);
  // Only this session's own local claim: a run.json another session wrote here is not ours to edit.
  if (local.kind !== "ok" || local.run.session !== ctx.session || local.run.issue !== claim.ticket) return;
  const known = agentSessionsSchema.parse(Object.fromEntries(Object.entries(stages).filter(([stage]) => STAGES.includes(stage))));
  await ctx.options.runRoot.update(claim.runDir, { ...local.run, sessions: { stages: known, at: ctx.now().toISOString() } });
}
