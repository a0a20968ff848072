/**
 * One issue -> one board row: which section, which marker, what the Run column says.
 * The rules (docs/board.md has the table):
 *   a live lease decides first (this Host / another Host / a person / expired);
 *   then a live run directory here (GitHub has not caught up yet);
 *   then the labels: in-progress (a claim without a lease), ready-for-human, ready-for-agent.
 * Open issues with none of these are not tickets and get no row.
 */
import type { HostIdentity } from "../../ports/host";
import type { Lease } from "../schemas/lease";
import type { LeaseRecord } from "../claims/lease-standing";
import { currentClaim, latestRecord, newerHold, type ShownClaim } from "./current-claim";
import { resetTime } from "../run/naming";
import { shortDuration, since } from "./durations";
import { sanitizeFullTitle, sanitizeName, sanitizeTitle } from "./sanitize";
import type { BoardIssue, BoardLabels, BoardRow, ContextPart, Holder, LocalClaim, MarkerKind, SectionId } from "./types";
import { CONTEXT_PARTS } from "./types";

export interface ClassifyContext {
  repo: string;
  viewer: string;
  host: HostIdentity;
  labels: BoardLabels;
  now: Date;
}

interface Verdict {
  section: SectionId;
  marker: MarkerKind;
  runColumn: string;
  spinning?: boolean;
  holder: Holder | null;
  lease: Lease | null;
  leaseUrl: string | null;
  notes?: string[];
}

function holderOf(lease: Lease): Holder {
  return { kind: lease.holder, user: lease.user, hostId: lease.host.id, hostName: sanitizeName(lease.host.name) };
}

function fromLive(claim: ShownClaim, local: LocalClaim | undefined, ctx: ClassifyContext): Verdict {
  const { lease } = claim;
  const holder = holderOf(lease);
  const base = { holder, lease, leaseUrl: claim.comment.url };
  const user = sanitizeName(lease.user);
  const here = lease.host.id === ctx.host.id;
  if (lease.holder === "person") {
    const section = here && lease.user === ctx.viewer ? "running-here" : "claimed-elsewhere";
    return { ...base, section, marker: "person", runColumn: `person · ${user}` };
  }
  const stage = lease.stage ? sanitizeName(lease.stage) : null;
  if (here) {
    if (local?.alive) {
      const running = lease.state === "running";
      const started = since(lease.stageStartedAt ?? lease.claimedAt, ctx.now) ?? 0;
      return {
        ...base,
        section: "running-here",
        marker: running ? "running" : "claimed-here",
        spinning: running,
        runColumn: `● ${holder.hostName} · ${stage ?? "claimed"} · ${shortDuration(started)}`,
      };
    }
    return { ...base, section: "stranded", marker: "stranded", runColumn: `stranded · ${holder.hostName}${stage ? ` · ${stage}` : ""}` };
  }
  const notes: string[] = [];
  if (local?.alive) notes.push(`A run on this Host still has ${local.runDir}; it yields at its next heartbeat.`);
  if (claim.expired) {
    const ago = shortDuration(since(lease.expiresAt, ctx.now) ?? 0);
    return { ...base, notes, section: "stale", marker: "stale", runColumn: `⚠ stale ${ago} · ${holder.hostName}` };
  }
  const left = lease.expiresAt ? ` · expires in ${shortDuration(-(since(lease.expiresAt, ctx.now) ?? 0))}` : "";
  return { ...base, notes, section: "claimed-elsewhere", marker: "claimed-elsewhere", runColumn: `◌ ${holder.hostName}${stage ? ` · ${stage}` : ""}${left}` };
}

const RECORD_WORD: Record<string, { word: string; marker: MarkerKind } | undefined> = {
  finished: { word: "finished", marker: "finished" },
  released: { word: "released", marker: "released" },
  "race-yielded": { word: "yielded", marker: "yielded" },
  "handed-off": { word: "handed off", marker: "free" },
};

function recordText(record: LeaseRecord | null, now: Date): { text: string; marker: MarkerKind; lease: Lease | null; url: string | null } | null {
  if (!record) return null;
  const ago = shortDuration(since(record.comment.updatedAt, now) ?? 0);
  if (!record.lease) return { text: `finished ${ago} ago`, marker: "finished", lease: null, url: record.comment.url };
  const word = RECORD_WORD[record.lease.state];
  if (!word) return null;
  return {
    text: `${word.word} ${ago} ago · ${sanitizeName(record.lease.host.name)}${limitText(record.lease, now)}`,
    marker: word.marker,
    lease: record.lease,
    url: record.comment.url,
  };
}

/** A release by a rate limit names when the limit resets, until it has. */
function limitText(lease: Lease, now: Date): string {
  if (lease.state !== "released" || !lease.limitResetsAt || (since(lease.limitResetsAt, now) ?? 0) >= 0) return "";
  const when = resetTime(lease.limitResetsAt);
  return when ? ` · limit resets ${when}` : "";
}

function fromLabels(issue: BoardIssue, local: LocalClaim | undefined, ctx: ClassifyContext): Verdict | null {
  const record = recordText(latestRecord(issue.readings, ctx.now), ctx.now);
  const assignees = issue.assignees.map(sanitizeName);
  const unread = issue.leaseUnread ? [`Lease not read: ${issue.leaseUnread}`] : [];
  if (local?.alive) {
    // Our own claim is being written, or GitHub has not caught up with it yet.
    const started = shortDuration(since(local.run.startedAt, ctx.now) ?? 0);
    const person = local.run.holder === "person";
    return {
      section: "running-here",
      marker: person ? "person" : "claimed-here",
      runColumn: person ? `person · ${sanitizeName(ctx.viewer)}` : `● ${sanitizeName(ctx.host.name)} · claiming · ${started}`,
      holder: { kind: local.run.holder, user: ctx.viewer, hostId: ctx.host.id, hostName: sanitizeName(ctx.host.name) },
      lease: null,
      leaseUrl: null,
      notes: unread,
    };
  }
  if (issue.labels.includes(ctx.labels.inProgress)) {
    const mineHere = issue.assignees.includes(ctx.viewer) && local !== undefined;
    if (mineHere) {
      const holder: Holder = { kind: local.run.holder, user: ctx.viewer, hostId: ctx.host.id, hostName: sanitizeName(ctx.host.name) };
      return {
        section: "stranded",
        marker: "stranded",
        runColumn: `stranded · ${holder.hostName} · no lease`,
        holder,
        lease: null,
        leaseUrl: null,
        notes: unread,
      };
    }
    const note = issue.leaseUnread ? unread : [`${ctx.labels.inProgress} without a lease comment: claimed by hand or by another tool.`];
    if (assignees.length === 0) {
      return {
        section: "claimed-elsewhere",
        marker: "claimed-elsewhere",
        runColumn: `◌ ${ctx.labels.inProgress} · nobody assigned`,
        holder: null,
        lease: null,
        leaseUrl: null,
        notes: note,
      };
    }
    const holder: Holder = { kind: "person", user: issue.assignees[0] ?? "", hostId: null, hostName: null };
    return { section: "claimed-elsewhere", marker: "person", runColumn: `person · ${assignees.join(", ")}`, holder, lease: null, leaseUrl: null, notes: note };
  }
  if (issue.labels.includes(ctx.labels.human)) {
    const text =
      assignees.length > 0 ? `person · ${assignees.join(", ")}` : record && record.lease?.state === "handed-off" ? record.text : "waiting for a person";
    return {
      section: "needs-person",
      marker: "needs-person",
      runColumn: text,
      holder: null,
      lease: record?.lease ?? null,
      leaseUrl: record?.url ?? null,
      notes: unread,
    };
  }
  if (issue.labels.includes(ctx.labels.ready) && issue.openBlockers?.length) {
    // GitHub issue dependencies: an open blocker keeps it off the Frontier until it is closed.
    const by = issue.openBlockers.map(sanitizeName);
    return {
      section: "blocked",
      marker: "blocked",
      runColumn: `blocked by ${by.join(", ")}`,
      holder: null,
      lease: record?.lease ?? null,
      leaseUrl: record?.url ?? null,
      notes: unread,
    };
  }
  if (issue.labels.includes(ctx.labels.ready)) {
    return {
      section: "frontier",
      marker: record?.marker ?? "free",
      runColumn: record?.text ?? "free",
      holder: null,
      lease: record?.lease ?? null,
      leaseUrl: record?.url ?? null,
      notes: unread,
    };
  }
  return null;
}

function contextParts(v: Verdict, local: LocalClaim | undefined, mine: boolean, here: boolean): ContextPart[] {
  const on = new Set<ContextPart>();
  if (v.section === "frontier") on.add("free");
  if (v.section === "running-here" || v.section === "claimed-elsewhere" || v.section === "stale" || v.section === "stranded") on.add("claimed");
  if (mine) on.add("mine");
  if (here) on.add("here");
  if (v.spinning) on.add("running");
  if (v.section === "stale") on.add("stale");
  if (v.holder?.kind === "person" && on.has("claimed")) on.add("person");
  if (v.section === "stranded") on.add("stranded");
  if (v.section === "needs-person") on.add("human");
  if (v.leaseUrl) on.add("lease");
  if (local?.worktree) on.add("worktree");
  if (local?.hasTranscript) on.add("transcript");
  return CONTEXT_PARTS.filter((p) => on.has(p));
}

/** A newer build's lease holds the ticket: shown as claimed, with what this build cannot read said in a note. */
function fromNewer(rec: LeaseRecord, local: LocalClaim | undefined): Verdict {
  const notes = [
    `The lease was written by a newer Ticket Runner (lease version ${rec.newer}): this build shows it as a claim and will not take, take over or release the ticket. Update Ticket Runner to read it.`,
  ];
  if (local?.alive) notes.push(`A run on this Host still has ${local.runDir}; it yields at its next heartbeat.`);
  return {
    section: "claimed-elsewhere",
    marker: "claimed-elsewhere",
    runColumn: `◌ newer Ticket Runner · ${sanitizeName(rec.comment.author)}`,
    holder: null,
    lease: null,
    leaseUrl: rec.comment.url,
    notes,
  };
}

export function classifyIssue(issue: BoardIssue, local: LocalClaim | undefined, ctx: ClassifyContext): BoardRow | null {
  const newer = newerHold(issue.readings, ctx.now);
  const live = newer ? null : currentClaim(issue.readings, ctx.now);
  const verdict = newer ? fromNewer(newer, local) : live ? fromLive(live, local, ctx) : fromLabels(issue, local, ctx);
  if (!verdict) return null;
  const claimed = verdict.section !== "frontier" && verdict.section !== "blocked" && verdict.section !== "needs-person";
  const here = claimed && (verdict.holder?.hostId === ctx.host.id || (local?.alive ?? false));
  const mine = claimed && (here || verdict.holder?.user === ctx.viewer);
  const parts = contextParts(verdict, local, mine, here);
  const notes = [...(verdict.notes ?? []), ...issue.ignored.map((i) => `Ignored ${i.url}: ${i.reason}`)];
  return {
    id: `${ctx.repo}#${issue.number}`,
    number: issue.number,
    title: sanitizeTitle(issue.title),
    fullTitle: sanitizeFullTitle(issue.title),
    labels: issue.labels.map(sanitizeName),
    section: verdict.section,
    marker: verdict.marker,
    spinning: verdict.spinning ?? false,
    runColumn: verdict.runColumn,
    issueUrl: issue.url,
    leaseUrl: verdict.leaseUrl,
    holder: verdict.holder,
    lease: verdict.lease,
    mine,
    contextParts: parts,
    contextValue: ["ticketRunner:ticket", ...parts].join("+"),
    localRunDir: local?.runDir ?? null,
    worktree: local?.worktree ?? null,
    notes,
  };
}
