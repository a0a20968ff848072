/**
 * Turns an issue's comments into lease readings, with the claims parser (src/core/claims/) doing
 * the parsing and the board doing the trust check. The board never reads a marker itself.
 */
import type { Lease } from "../schemas/lease";
import type { TrackerComment } from "../../ports/tracker";
import type { BoardIssue, LeaseReading } from "./types";

/** What the claims parser made of one comment. */
export type MarkerParse =
  | { kind: "lease"; lease: Lease }
  | { kind: "finished-legacy" }
  | { kind: "ignored"; reason: string }
  | { kind: "none" };

export type MarkerParser = (comment: TrackerComment, target: { repo: string; issue: number }) => MarkerParse;

export interface ParsedComments {
  readings: LeaseReading[];
  ignored: BoardIssue["ignored"];
  /** Authors of marker comments, for the trust check. */
  authors: Set<string>;
}

export function parseComments(comments: TrackerComment[], target: { repo: string; issue: number }, parse: MarkerParser): ParsedComments {
  const out: ParsedComments = { readings: [], ignored: [], authors: new Set() };
  for (const c of comments) {
    let parsed: MarkerParse;
    try {
      parsed = parse(c, target);
    } catch (e) {
      // The parser is meant never to throw; if it does, one comment is lost, not the board.
      parsed = { kind: "ignored", reason: `parser error: ${e instanceof Error ? e.message : String(e)}` };
    }
    const comment = { id: c.id, url: c.url, author: c.author, updatedAt: c.updatedAt };
    if (parsed.kind === "none") continue;
    if (parsed.kind === "ignored") {
      out.ignored.push({ url: c.url, reason: parsed.reason });
      continue;
    }
    out.authors.add(c.author);
    out.readings.push(parsed.kind === "lease" ? { kind: "lease", lease: parsed.lease, comment } : { kind: "finished-legacy", comment });
  }
  return out;
}

/** Drops readings whose author may not write to the Target (BRIEF §3 rule 6), noting each. */
export function keepTrusted(parsed: ParsedComments, trusted: (login: string) => boolean): Pick<ParsedComments, "readings" | "ignored"> {
  const readings: LeaseReading[] = [];
  const ignored = [...parsed.ignored];
  for (const r of parsed.readings) {
    if (trusted(r.comment.author)) readings.push(r);
    else ignored.push({ url: r.comment.url, reason: `written by ${r.comment.author}, who has no write access to the repository` });
  }
  return { readings, ignored };
}
