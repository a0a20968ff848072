/**
 * The board model: one picture of a Target's tickets, shared by `ticket-runner board` and the
 * VS Code tree view. Everything here is plain data; src/core/board/build.ts makes it from a
 * fetched snapshot, the run root and the clock, with no I/O. Leases are parsed and judged by the
 * claims code (src/core/claims/); the board only decides how to show them.
 */
import type { HostIdentity } from "../../ports/host";
import type { LeaseRecord } from "../claims/lease-standing";
import type { Lease } from "../schemas/lease";
import type { RunJson } from "../schemas/run-json";

/** One open issue as the board needs it. */
export interface BoardIssue {
  number: number;
  title: string;
  url: string;
  labels: string[];
  assignees: string[];
  /** Trusted marker comments, as the claims code reads them (src/core/claims/claim-view.ts). */
  readings: LeaseRecord[];
  /** Marker comments the board did not believe (untrusted author, malformed), with the reason. */
  ignored: { url: string; reason: string }[];
  /** Why the lease could not be read this time (e.g. the extra comments request failed), if so. */
  leaseUnread?: string;
  /** Open issues blocking this one (`#n`, or `owner/name#n` elsewhere): it is not on the Frontier. */
  openBlockers?: string[];
}

/** A run directory on this Host (`<run root>/<owner>__<repo>/issue-<n>/run.json`). */
export interface LocalClaim {
  issue: number;
  runDir: string;
  run: RunJson;
  /** The process that wrote run.json is still running on this Host. */
  alive: boolean;
  /** The run's worktree, when it names one that exists on disk. */
  worktree: string | null;
  /** The run directory holds transcripts that Show Transcript can open. */
  hasTranscript: boolean;
}

export interface BoardLabels {
  ready: string;
  inProgress: string;
  human: string;
}

export interface BoardInput {
  /** `owner/name` */
  repo: string;
  /** The signed-in GitHub user. */
  viewer: string;
  host: HostIdentity;
  labels: BoardLabels;
  issues: BoardIssue[];
  local: LocalClaim[];
  now: Date;
  /** The server has no issue dependencies: the board leaves the Blocked section out. */
  noDependencies?: true;
}

export type SectionId = "running-here" | "claimed-elsewhere" | "stale" | "frontier" | "blocked" | "needs-person" | "stranded";

/** The claim state a row's marker shows; the tree view maps each to a codicon and a colour. */
export type MarkerKind =
  | "running" // a Stage runs here now (spins)
  | "claimed-here" // held by this Host, no Stage running at this moment
  | "claimed-elsewhere" // a machine on another Host holds a live lease
  | "person" // a person holds it (lease held by a person, or a bare board claim)
  | "stale" // another Host's lease expired
  | "stranded" // this Host's claim, but no run is alive here
  | "free" // on the Frontier, never held
  | "finished" // on the Frontier again after a finished record (reopened)
  | "released" // on the Frontier again after a Release
  | "yielded" // on the Frontier after a lost race
  | "blocked" // ready, but an open issue blocks it
  | "needs-person"; // ready-for-human

/** The parts of a row's contextValue, in the order they are written. */
export const CONTEXT_PARTS = ["free", "claimed", "mine", "here", "running", "stale", "person", "stranded", "human", "lease", "worktree", "transcript"] as const;
export type ContextPart = (typeof CONTEXT_PARTS)[number];

export interface Holder {
  kind: "machine" | "person";
  user: string;
  hostId: string | null;
  hostName: string | null;
}

export interface BoardRow {
  /** Stable across refreshes: `owner/name#n`. */
  id: string;
  number: number;
  /** Safe for a one-line label: no controls, no bidi overrides, at most 120 characters. */
  title: string;
  /** Same cleaning, up to 1,000 characters, for tooltips. */
  fullTitle: string;
  labels: string[];
  section: SectionId;
  marker: MarkerKind;
  /** True while a Stage runs on this Host: the tree view spins the marker. */
  spinning: boolean;
  /** The Run column, e.g. `● desk · implement · 12m`. */
  runColumn: string;
  issueUrl: string;
  /** The lease comment, when one was read. */
  leaseUrl: string | null;
  holder: Holder | null;
  /** The lease behind the Run column (live claim or latest record), for tooltips and `--json`. */
  lease: Lease | null;
  /** Held by the signed-in user (any Host) or by this Host. */
  mine: boolean;
  contextParts: ContextPart[];
  /** `ticketRunner:ticket+claimed+stale` and so on. */
  contextValue: string;
  localRunDir: string | null;
  worktree: string | null;
  /** Things worth knowing that do not change the section: ignored leases, a displaced local run. */
  notes: string[];
}

export interface BoardSection {
  id: SectionId;
  title: string;
  rows: BoardRow[];
  count: number;
}

export interface BoardModel {
  repo: string;
  viewer: string;
  hostName: string;
  builtAt: string;
  /** In display order: Running here, Claimed elsewhere, Stale, Frontier (ready), Blocked, Needs a person, Stranded. */
  sections: BoardSection[];
  /** What runs on this Host: the badge. */
  runningHere: number;
  total: number;
  filter: BoardFilter;
}

export type BoardFilter = "all" | "mine";
