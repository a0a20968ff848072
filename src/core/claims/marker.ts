/**
 * The marker line that makes a comment a lease, and the finished marker that makes it a record.
 * docs/claims.md has the grammar; docs/adr/0041-lease-comment-format.md says why it looks like this.
 */

/** Version of the marker grammar this build writes and reads. A higher version holds a ticket this build cannot judge (ADR 0421). */
const MARKER_VERSION = 1;
export const MARKER_PREFIX = "<!-- ticket-runner:lease";
export const FINISHED_MARKER = "<!-- ticket-runner:finished -->";
/** GitHub refuses comment bodies longer than this, so a longer one is not a comment we wrote. */
export const MAX_COMMENT_CHARS = 65_536;

const REPO_RE = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** `<!-- ticket-runner:lease owner/repo#n -->`: invisible on the rendered page, searchable in the API. */
export function leaseMarker(repo: string, issue: number): string {
  return `${MARKER_PREFIX} ${repo}#${issue} -->`;
}

/**
 * A ticket number as typed by a person or found in a marker: a positive integer in canonical form
 * ("12", not "012", "12.0", "+12" or "1e3"). Returns null for anything else.
 */
export function parseTicketNumber(text: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** A ticket number as a person types it: `12` or `#12` (GitHub's own way of writing it). */
export function parseTicketInput(text: string): number | null {
  return parseTicketNumber(text.startsWith("#") ? text.slice(1) : text);
}

export type MarkerParse =
  | { kind: "marker"; repo: string; issue: number; version: number }
  /** A marker of a grammar newer than this build's, naming its repository and issue the way every version has. */
  | { kind: "newer"; repo: string; issue: number; version: number; reason: string }
  | { kind: "bad"; reason: string };

/** Parses a line already known to start with MARKER_PREFIX. */
export function parseMarkerLine(line: string): MarkerParse {
  const m = /^<!--\s*ticket-runner:lease(?:\s+v([^\s#]+))?\s+(\S+)#(\S+)\s*-->$/.exec(line.trim());
  if (!m) return { kind: "bad", reason: "unparseable lease marker" };
  const [, versionText, repo, issueText] = m;
  let version = MARKER_VERSION;
  if (versionText !== undefined) {
    const v = parseTicketNumber(versionText);
    if (v === null) return { kind: "bad", reason: `unparseable marker version "${clip(versionText)}"` };
    version = v;
  }
  if (!repo || !REPO_RE.test(repo)) return { kind: "bad", reason: `marker names no repository ("${clip(repo ?? "")}")` };
  const issue = parseTicketNumber(issueText ?? "");
  if (issue === null) return { kind: "bad", reason: `marker issue "${clip(issueText ?? "")}" is not a positive integer` };
  if (version > MARKER_VERSION)
    return { kind: "newer", repo, issue, version, reason: `marker version ${version} is newer than this build reads (${MARKER_VERSION})` };
  return { kind: "marker", repo, issue, version };
}

export function sameRepo(a: string, b: string): boolean {
  // GitHub owner and repository names are case-insensitive.
  return a.toLowerCase() === b.toLowerCase();
}

/** Keeps log lines short and single-line when they quote untrusted text. */
export function clip(text: string, max = 60): string {
  const one = text.replace(/[\r\n\t]+/g, " ");
  return one.length > max ? `${one.slice(0, max)}…` : one;
}
