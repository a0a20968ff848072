/**
 * Builds the board model from everything fetched. Pure: the same input gives the same model,
 * so the tree view can rebuild it every tick (durations move on) without a request.
 */
import { classifyIssue, type ClassifyContext } from "./classify";
import type { BoardFilter, BoardInput, BoardModel, BoardRow, BoardSection, LocalClaim, SectionId } from "./types";

export const SECTION_ORDER: readonly SectionId[] = ["running-here", "claimed-elsewhere", "stale", "frontier", "blocked", "needs-person", "stranded"];

export const SECTION_TITLES: Record<SectionId, string> = {
  "running-here": "Running here",
  "claimed-elsewhere": "Claimed elsewhere",
  stale: "Stale",
  frontier: "Frontier (ready)",
  blocked: "Blocked",
  "needs-person": "Needs a person",
  stranded: "Stranded",
};

export function buildBoard(input: BoardInput, filter: BoardFilter = "all"): BoardModel {
  const ctx: ClassifyContext = { repo: input.repo, viewer: input.viewer, host: input.host, labels: input.labels, now: input.now };
  const localByIssue = new Map<number, LocalClaim>();
  for (const claim of input.local) {
    // Two run directories can name one issue only by hand (--run-dir); the live one wins.
    const seen = localByIssue.get(claim.issue);
    if (!seen || (!seen.alive && claim.alive)) localByIssue.set(claim.issue, claim);
  }
  const bySection = new Map<SectionId, BoardRow[]>(SECTION_ORDER.map((id) => [id, []]));
  const seenNumbers = new Set<number>();
  for (const issue of input.issues) {
    if (seenNumbers.has(issue.number)) continue; // a page boundary moved under us; first copy wins
    seenNumbers.add(issue.number);
    const row = classifyIssue(issue, localByIssue.get(issue.number), ctx);
    if (!row) continue;
    if (filter === "mine" && !row.mine) continue;
    bySection.get(row.section)?.push(row);
  }
  // Without issue dependencies nothing can be known to be blocked; an always-empty section would lie.
  const order = input.noDependencies ? SECTION_ORDER.filter((id) => id !== "blocked") : SECTION_ORDER;
  const sections: BoardSection[] = order.map((id) => {
    const rows = (bySection.get(id) ?? []).sort((a, b) => a.number - b.number);
    return { id, title: SECTION_TITLES[id], rows, count: rows.length };
  });
  const runningHere = sections.find((s) => s.id === "running-here")?.count ?? 0;
  return {
    repo: input.repo,
    viewer: input.viewer,
    hostName: input.host.name,
    builtAt: input.now.toISOString(),
    sections,
    runningHere,
    total: sections.reduce((n, s) => n + s.count, 0),
    filter,
  };
}
