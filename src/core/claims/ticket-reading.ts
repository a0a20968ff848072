/** One read of a ticket as the claims code sees it: the issue, its comments and their lease records. */
import type { TrackerComment, TrackerIssue } from "../../ports/tracker";
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
}
