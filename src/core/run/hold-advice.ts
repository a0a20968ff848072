/**
 * A Hold in a person's words: a short reason for a list, who or what holds the ticket (with a
 * link), and the step that frees it. Front-door neutral: each front door adds its own "then start
 * it again" (a command name, a CLI line).
 */
import type { Hold } from "./holds";

export interface HoldAdvice {
  /** One short line for a list row: "blocked by #3 (open)". */
  reason: string;
  /** Who or what holds the ticket, and where to see it. */
  holder: { text: string; url: string };
  /** What frees it, as an instruction: "close #3 (or remove it from #5's blocked-by list)". */
  fix: string;
  /** A ticket-runner command that frees it, when one exists. */
  command?: string;
}

/** The web address of issue `n` of the same repository as `url` (an issue's html_url). */
export function siblingIssueUrl(url: string, n: number): string {
  return /\/issues\/\d+$/.test(url) ? url.replace(/\/issues\/\d+$/, `/issues/${n}`) : url;
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export function holdAdvice(hold: Hold, issue: { number: number; url: string }, repo: string): HoldAdvice {
  const self = { text: `#${issue.number}`, url: issue.url };
  switch (hold.kind) {
    case "blocked": {
      const names = hold.blockers.map((b) => `#${b}`);
      const first = hold.blockers[0] ?? issue.number;
      const them = names.length === 1 ? "it" : "them";
      return {
        reason: `blocked by ${names.join(", ")} (open)`,
        holder: { text: names.join(", "), url: siblingIssueUrl(issue.url, first) },
        fix: `close ${list(names)} first (or remove ${them} from #${issue.number}'s blocked-by list)`,
      };
    }
    case "untrusted": {
      const fix = `someone with write access to ${repo} removes ${hold.label} from #${issue.number} and applies it again`;
      if (hold.actor) return { reason: `${hold.label} applied by ${hold.actor}, who has no write access`, holder: { text: hold.actor, url: issue.url }, fix };
      if (hold.actor === null) return { reason: `nobody is recorded as applying ${hold.label}`, holder: self, fix };
      return { reason: `${hold.label} was not applied by someone with write access`, holder: self, fix };
    }
    case "no-criteria":
      return {
        reason: "no unticked acceptance criteria",
        holder: self,
        fix: `add acceptance criteria to #${issue.number}'s body as unticked task-list items, one per line (\`- [ ] npm test passes\`)`,
      };
    case "held":
      return {
        reason: `assigned to ${hold.by.join(", ")}`,
        holder: { text: hold.by.join(", "), url: issue.url },
        fix: `${list(hold.by)} unassign${hold.by.length === 1 ? "s" : ""} #${issue.number} (a Run never takes an assigned issue)`,
      };
    case "labelled":
      if (hold.as === "in-progress") {
        return {
          reason: `labelled ${hold.label}: claimed`,
          holder: self,
          fix: `wait for the Run that holds #${issue.number} to end (or release it, when the claim is yours)`,
        };
      }
      return {
        reason: `labelled ${hold.label}: with a person`,
        holder: self,
        fix: `hand #${issue.number} back to the Runs (${hold.label} off, the ready label on)`,
        command: `ticket-runner hand-back ${issue.number}`,
      };
    case "not-labelled":
      return { reason: `not labelled ${hold.label}`, holder: self, fix: `apply ${hold.label} to #${issue.number}` };
    case "not-open":
      return { reason: "closed", holder: self, fix: `reopen #${issue.number}` };
  }
}
