/**
 * The demo's ticket behaviours that a scripted model server must play itself when a real CLI works
 * the demo (`ticket-runner demo --agent codex|gemini`), because the model cannot act outside the
 * agent's sandbox: `rate-limit-once[:<stage>]` (the first session of the ticket, or of that Stage,
 * is refused with the provider's usage limit) and `conflict` (a teammate pushes to the base branch
 * while the ticket's first implement works, as the demo agent does). Remembered per server.
 */
import { behavioursOf, extractIssue, parseDemoBlock } from "../demo-agent/demo-block";
import { defaultTeammateFiles } from "../demo-agent/teammate";
import type { ProviderFaultInput } from "./provider-faults";
import type { StagePrompt } from "./stage-script";

export type BeforeTurn = (sp: StagePrompt, step: number) => Promise<ProviderFaultInput | null>;

export interface DemoBehaviourOptions {
  /** A clone of the Target, for the teammate's push. */
  clone: string;
  /** Carries TICKET_RUNNER_DEMO_TEAMMATE_TOKEN for the push. */
  env: NodeJS.ProcessEnv;
  pushTeammateCommit(cwd: string, env: NodeJS.ProcessEnv, files: Record<string, string>, ticket: string): Promise<unknown>;
}

export function demoBehaviours(opts: DemoBehaviourOptions): BeforeTurn {
  const spent = new Set<string>();
  return async (sp, step) => {
    if (step !== 0) return null;
    let block;
    try {
      block = parseDemoBlock(extractIssue(sp.prompt).body);
    } catch {
      return null;
    }
    const b = behavioursOf(block);
    if (b.rateLimitOnce === "any" || b.rateLimitOnce === sp.stage) {
      const key = b.rateLimitOnce === "any" ? `limit:${sp.ticket}` : `limit:${sp.ticket}:${sp.stage}`;
      if (!spent.has(key)) {
        spent.add(key);
        return { answer: "rate-limit", resetInSeconds: 3600 };
      }
    }
    if (b.conflict && sp.stage === "implement" && !spent.has(`conflict:${sp.ticket}`)) {
      spent.add(`conflict:${sp.ticket}`);
      await opts.pushTeammateCommit(opts.clone, opts.env, block.teammateFiles ?? defaultTeammateFiles(block.files, String(sp.ticket)), String(sp.ticket));
    }
    return null;
  };
}
