// No `vscode` import: the question Start asks the first time in a workspace, and when it must be
// asked again. Unit-tested without VS Code.

/** What the person agreed to; stored in the workspace state. A change of any part asks again. */
export interface StartConsent {
  readonly repo: string;
  readonly lanes: number;
  readonly agent: string;
}

export const CONSENT_STATE_KEY = "ticketRunner.startConsent";

export function consentCovers(stored: unknown, wanted: StartConsent): boolean {
  if (!stored || typeof stored !== "object") return false;
  const s = stored as Record<string, unknown>;
  return s["repo"] === wanted.repo && s["lanes"] === wanted.lanes && s["agent"] === wanted.agent;
}

export interface StartQuestion {
  readonly message: string;
  readonly detail: string;
  readonly confirm: string;
}

export function startQuestion(c: StartConsent, readyLabel: string, narrowedTo: readonly number[] | null): StartQuestion {
  const lanes = `${c.lanes} ${c.lanes === 1 ? "lane" : "lanes"}`;
  const which = narrowedTo?.length ? `ticket ${narrowedTo.map((n) => `#${n}`).join(", ")}` : `tickets labelled ${readyLabel}`;
  return {
    message: `Start a Run on ${c.repo} with ${lanes} and the ${c.agent} agent?`,
    detail: [
      `It claims ${which} as you, runs the ${c.agent} agent on each in its own worktree, pushes branches, opens pull requests and merges them when the Checks, the verify Stage and CI pass.`,
      `Stop finishes the busy lanes and claims nothing more. Closing or reloading this window kills the Run: its claims stay, and the next Start resumes them.`,
      `You are asked once for this repository, lane count and agent in this workspace.`,
    ].join("\n\n"),
    confirm: "Start",
  };
}
