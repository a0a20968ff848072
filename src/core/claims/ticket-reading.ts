/** One read of a ticket as the claims code sees it: the issue, its comments and their lease records. */
import type { BodyHistory, TrackerComment, TrackerIssue } from "../../ports/tracker";
import type { IgnoredComment } from "./claim-view";
import type { LeaseRecord, Standings } from "./lease-standing";

export interface TicketReading {
  issue: TrackerIssue;
  /** Every comment as read (the Run reuses a claim's read-back instead of reading them again). */
  comments: TrackerComment[];
  viewer: string;
  records: LeaseRecord[];
  ignored: IgnoredComment[];
  standing: Standings;
  /** Actors of recent `labeled` events per label, when the read carried them. */
  labelActors?: Record<string, string[]>;
  /** When each label was last applied, when the read carried it (IssueThread.labeledAt). */
  labeledAt?: Record<string, string>;
  /** Who edited the body and when, when the read carried it (IssueThread.bodyEdits). */
  bodyEdits?: BodyHistory["edits"];
}
