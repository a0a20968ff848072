/**
 * The lease comment: rendering it and reading it back.
 *
 *     <!-- ticket-runner:lease owner/repo#12 -->
 *     **Claimed** by @alice on `build-vm-3` (machine) · claimed 2026-01-02 10:00 UTC · expires 10:45 UTC
 *
 *     ```json
 *     { ...the lease (src/core/schemas/lease.ts)... }
 *     ```
 *
 * Only the region before the first `<details>` is read: what follows is archive, and an archive may
 * quote anything (a marker, a finished line, a whole lease). The parser never throws; anything it
 * cannot believe comes back as `ignored` with a reason for the log.
 */
import { leaseSchema, LEASE_VERSION, type Lease } from "../schemas/lease";
import { clip, FINISHED_MARKER, leaseMarker, MARKER_PREFIX, MAX_COMMENT_CHARS, parseMarkerLine, sameRepo } from "./marker";

export type LeaseParse =
  /** Not a lease comment at all (most comments): say nothing. */
  | { kind: "none" }
  /** A readable lease. `finished` is true when the region carries a finished marker or line; the lease's state then reads "finished". */
  | { kind: "lease"; lease: Lease; finished: boolean }
  /** A lease comment with a finished marker or the older bare finished line, but no readable lease JSON. */
  | { kind: "finished-legacy" }
  /**
   * A lease written by a newer Ticket Runner (its marker or its lease JSON has a version this build
   * does not read), not marked finished: a hold this build cannot judge (ADR 0421).
   */
  | { kind: "newer"; version: number; reason: string }
  /** Looked like a lease but is not believed: log the reason, count it for nothing. */
  | { kind: "ignored"; reason: string };

const DETAILS_RE = /<details[\s>]/i;

/** The part of a body that counts: everything before the first `<details>`. */
export function claimRegion(body: string): string {
  const m = DETAILS_RE.exec(body);
  return m ? body.slice(0, m.index) : body;
}

/** The archive part (from the first `<details>` on), kept when the lease is rewritten in place. */
export function archiveTail(body: string): string {
  const m = DETAILS_RE.exec(body);
  return m ? body.slice(m.index) : "";
}

function isLegacyFinishedLine(line: string): boolean {
  return line.trimStart().startsWith("**Finished**");
}

export function parseLeaseComment(body: string, expect: { repo: string; issue: number }): LeaseParse {
  if (typeof body !== "string") return { kind: "ignored", reason: "comment body is not text" };
  if (!body.includes("ticket-runner:lease")) return { kind: "none" };
  if (body.length > MAX_COMMENT_CHARS) return { kind: "ignored", reason: `comment is ${body.length} characters, over GitHub's ${MAX_COMMENT_CHARS}` };

  const text = body.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const region = claimRegion(text);
  const lines = region.split("\n");
  const first = (lines[0] ?? "").trim();
  if (!first.startsWith(MARKER_PREFIX)) {
    const where = region.includes("ticket-runner:lease") ? "not on the first line" : "quoted inside <details>";
    return { kind: "ignored", reason: `lease marker ${where}: not a lease` };
  }
  const marker = parseMarkerLine(first);
  if (marker.kind === "bad") return { kind: "ignored", reason: marker.reason };
  if (!sameRepo(marker.repo, expect.repo) || marker.issue !== expect.issue) {
    return { kind: "ignored", reason: `marker names ${clip(marker.repo)}#${marker.issue}, but the comment is on ${expect.repo}#${expect.issue}` };
  }

  const finished = lines.some((l) => l.trim() === FINISHED_MARKER || isLegacyFinishedLine(l));
  // Every version marks a finished record the same way; anything else of a newer grammar may hold the ticket.
  if (marker.kind === "newer") return finished ? { kind: "finished-legacy" } : { kind: "newer", version: marker.version, reason: marker.reason };
  const json = fencedJson(lines);
  if (json === null) {
    return finished ? { kind: "finished-legacy" } : { kind: "ignored", reason: "lease JSON missing or truncated (no closed ```json block before <details>)" };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    const why = error instanceof Error ? error.message : "parse error";
    return finished ? { kind: "finished-legacy" } : { kind: "ignored", reason: `malformed lease JSON: ${clip(why)}` };
  }
  const version = typeof raw === "object" && raw !== null ? (raw as { version?: unknown }).version : undefined;
  if (typeof version === "number" && Number.isSafeInteger(version) && version > LEASE_VERSION) {
    const reason = `lease version ${version} is newer than this build reads (${LEASE_VERSION})`;
    return finished ? { kind: "finished-legacy" } : { kind: "newer", version, reason };
  }
  const parsed = leaseSchema.safeParse(raw);
  if (!parsed.success) {
    if (finished) return { kind: "finished-legacy" };
    const issue = parsed.error.issues[0];
    const path = issue?.path.join(".") || "(root)";
    return { kind: "ignored", reason: `lease JSON does not match the schema at ${clip(path)}: ${clip(issue?.message ?? "invalid")}` };
  }
  const lease = parsed.data;
  if (!sameRepo(lease.repo, expect.repo) || lease.issue !== expect.issue) {
    return { kind: "ignored", reason: `lease JSON names ${lease.repo}#${lease.issue}, but the comment is on ${expect.repo}#${expect.issue}` };
  }
  // The marker wins over the JSON: finished is a record, never a claim.
  return { kind: "lease", lease: finished ? { ...lease, state: "finished" } : lease, finished };
}

/** The first ```json fenced block after the marker, or null when none closes before the region ends. */
function fencedJson(lines: string[]): string | null {
  const open = lines.findIndex((l, i) => i > 0 && l.trim() === "```json");
  if (open < 0) return null;
  const close = lines.findIndex((l, i) => i > open && l.trim() === "```");
  if (close < 0) return null;
  return lines.slice(open + 1, close).join("\n");
}

/**
 * JSON that cannot end the region early or close an HTML comment: `<`, `>` and `&` are written as
 * \u escapes, which JSON.parse reads back to the same characters.
 */
function safeJson(lease: Lease): string {
  return JSON.stringify(lease, null, 2).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Text a person reads; nothing in it can be mistaken for markup or a marker. */
function plain(text: string): string {
  return (
    text
      .replace(/[`*_<>[\]\\|\r\n]/g, " ")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 80) || "?"
  );
}

function utc(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

export function humanLine(lease: Lease): string {
  const who = `@${plain(lease.user)} on \`${plain(lease.host.name)}\` (${lease.holder})`;
  switch (lease.state) {
    case "claimed":
    case "running": {
      const stage = lease.state === "running" && lease.stage ? ` · stage: ${plain(lease.stage)}` : "";
      const expiry = lease.expiresAt ? `expires ${utc(lease.expiresAt)}` : "held by a person: never goes stale";
      const took = lease.takeover ? ` · ${lease.takeover.kind} of ${plain(lease.takeover.from)}` : "";
      return `**Claimed** by ${who} · claimed ${utc(lease.claimedAt)} · ${expiry}${stage}${took}`;
    }
    case "race-yielded":
      return `**Yielded**: ${who} lost the claim race${lease.yieldedTo ? ` to lease ${plain(lease.yieldedTo)}` : ""} and started nothing.`;
    case "released":
      return `**Released** by ${who}: the ticket is back in the queue.${lease.limitResetsAt ? ` A rate limit stopped it; it resets ${utc(lease.limitResetsAt)}.` : ""}`;
    case "handed-off":
      return `**Handed off** by ${who} to a person.`;
    case "superseded":
      return `**Superseded**: this claim by ${who} was taken over${lease.supersededBy ? ` by lease ${plain(lease.supersededBy)}` : ""}.`;
    case "finished":
      return `**Finished** by ${who}.`;
  }
}

/** The whole comment body. `tail` (an archive starting with `<details>`) is kept after the lease. */
export function renderLeaseComment(lease: Lease, tail = ""): string {
  const head = [leaseMarker(lease.repo, lease.issue)];
  if (lease.state === "finished") head.push(FINISHED_MARKER);
  head.push(humanLine(lease), "", "```json", safeJson(lease), "```");
  const body = head.join("\n");
  const keep = DETAILS_RE.test(tail.slice(0, 20)) ? tail : "";
  if (!keep) return body;
  const whole = `${body}\n\n${keep}`;
  // Never write what GitHub would refuse: the lease matters more than an old archive.
  return whole.length <= MAX_COMMENT_CHARS ? whole : body;
}
