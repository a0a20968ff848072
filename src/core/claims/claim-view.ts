/**
 * One issue's comments read as claims: parse every marker comment, drop what an untrusted writer
 * wrote, log every ignored comment with its reason. The board and the protocol both read through here.
 */
import type { Log } from "../../ports/log";
import type { TrackerComment } from "../../ports/tracker";
import { parseLeaseComment } from "./lease-comment";
import { isNewer, type LeaseRecord } from "./lease-standing";
import type { TrustCache } from "./trust";
import type { GithubId } from "../schemas/github-id";

export interface IgnoredComment {
  commentId: GithubId;
  url: string;
  author: string;
  reason: string;
}

export interface LeaseReadings {
  records: LeaseRecord[];
  ignored: IgnoredComment[];
}

function info(c: TrackerComment): LeaseRecord["comment"] {
  return { id: c.id, url: c.url, author: c.author, createdAt: c.createdAt, updatedAt: c.updatedAt, body: c.body };
}

/** Parses without the trust check (for callers that check authors themselves). */
export function parseComments(comments: TrackerComment[], repo: string, issue: number): { candidates: LeaseRecord[]; ignored: IgnoredComment[] } {
  const candidates: LeaseRecord[] = [];
  const ignored: IgnoredComment[] = [];
  for (const c of comments) {
    const parsed = parseLeaseComment(c.body, { repo, issue });
    if (parsed.kind === "none") continue;
    if (parsed.kind === "ignored") {
      ignored.push({ commentId: c.id, url: c.url, author: c.author, reason: parsed.reason });
      continue;
    }
    if (parsed.kind === "newer") candidates.push({ comment: info(c), lease: null, finished: false, newer: parsed.version });
    else if (parsed.kind === "finished-legacy") candidates.push({ comment: info(c), lease: null, finished: true });
    else candidates.push({ comment: info(c), lease: parsed.lease, finished: parsed.finished });
  }
  return { candidates, ignored };
}

export async function readLeases(
  comments: TrackerComment[],
  ctx: { repo: string; issue: number; trust: TrustCache; log: Log; warned?: Set<string> },
): Promise<LeaseReadings> {
  const { candidates, ignored } = parseComments(comments, ctx.repo, ctx.issue);
  const verdicts = await Promise.all(candidates.map((r) => ctx.trust.trusted(r.comment.author)));
  const records: LeaseRecord[] = [];
  candidates.forEach((r, i) => {
    if (verdicts[i]) records.push(r);
    else
      ignored.push({
        commentId: r.comment.id,
        url: r.comment.url,
        author: r.comment.author,
        reason: `written by ${r.comment.author}, who has no write access to ${ctx.repo}`,
      });
  });
  for (const r of records.filter(isNewer)) {
    const key = `${ctx.repo}#${ctx.issue} ${r.comment.id} newer`;
    if (ctx.warned?.has(key)) continue;
    ctx.warned?.add(key);
    ctx.log.warn("a lease from a newer Ticket Runner holds this ticket; this build cannot judge it and leaves the ticket alone (ADR 0421)", {
      repo: ctx.repo,
      issue: ctx.issue,
      comment: r.comment.url,
      author: r.comment.author,
      version: r.newer ?? null,
    });
  }
  for (const g of ignored) {
    // A claim reads a ticket more than once (read, read-back, heartbeats): each comment is said once.
    const key = `${ctx.repo}#${ctx.issue} ${g.commentId} ${g.reason}`;
    if (ctx.warned?.has(key)) continue;
    ctx.warned?.add(key);
    ctx.log.warn("ignored a lease comment", { repo: ctx.repo, issue: ctx.issue, comment: g.url, author: g.author, reason: g.reason });
  }
  return { records, ignored };
}
