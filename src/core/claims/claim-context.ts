/**
 * What every step of the claim protocol shares: the ports, the settings, who we are, the trust
 * cache, and one way to read a ticket's claims (one request through Tracker.readIssueThread).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Clock } from "../../ports/clock";
import type { HostIdentity } from "../../ports/host";
import type { Log } from "../../ports/log";
import type { RunRoot } from "../../ports/run-root";
import type { IssueThread, Tracker } from "../../ports/tracker";
import { Refusal } from "../errors";
import type { RunJson } from "../schemas/run-json";
import { notAWriter } from "./refusals";
import { readLeases } from "./claim-view";
import { standings } from "./lease-standing";
import { TrustCache } from "./trust";
import type { TicketReading } from "./ticket-reading";

export interface ClaimLabels {
  ready: string;
  inProgress: string;
  human: string;
  /** Add a `claim:<host>` label too. */
  hostLabels: boolean;
}

export interface LeaseTiming {
  ttlMinutes: number;
  heartbeatMinutes: number;
  /** Wait between writing a claim and reading every lease back (eventual consistency). */
  settleMs: number;
}

export interface ClaimProtocolOptions {
  tracker: Tracker;
  runRoot: RunRoot;
  host: HostIdentity;
  clock: Clock;
  log: Log;
  labels: ClaimLabels;
  lease: LeaseTiming;
  /** "person" for a claim or start by hand (never stale); "machine" for a Run. */
  holder: "person" | "machine";
  /** The Run (or CLI invocation) id written into leases and run.json. */
  runId: string;
  /** This process's session id; a random one when absent. */
  session?: string;
  pid: number;
  /** Whether the process that wrote a run.json still runs (Host port). Without it a run.json always counts as live. */
  isAlive?: (run: RunJson) => Promise<boolean>;
  /** Nonce source, for tests. */
  nonce?: () => string;
  /**
   * A Run holding the Target's Run lock (lockScope "target") may adopt this user's machine lease
   * written on another Host: holding the lock proves that Host's Run is gone (docs/endings.md, "Stranded
   * Tickets"). Off by default, and off for lockScope "host", where Runs on other Hosts may be live.
   */
  adoptAcrossHosts?: boolean;
}

/** What a write-only step is doing, and the command to run again with a writer's token (ADR 0220). */
export interface WriterUse {
  doing: string;
  again: string;
}

export class ClaimContext {
  readonly repoName: string;
  readonly trust: TrustCache;
  readonly session: string;
  private viewerLogin: Promise<string> | null = null;
  /** Ignored lease comments already logged by this process (each is said once). */
  private readonly warned = new Set<string>();

  constructor(readonly options: ClaimProtocolOptions) {
    this.repoName = `${options.tracker.repo.owner}/${options.tracker.repo.repo}`;
    this.trust = new TrustCache(options.tracker, options.log);
    this.session = options.session ?? randomUUID();
  }

  now(): Date {
    return this.options.clock.now();
  }

  nonce(): string {
    return this.options.nonce ? this.options.nonce() : randomBytes(8).toString("hex");
  }

  viewer(): Promise<string> {
    if (!this.viewerLogin) {
      this.viewerLogin = this.options.tracker.viewer();
      this.viewerLogin.catch(() => (this.viewerLogin = null));
    }
    return this.viewerLogin;
  }

  /** `claim:<host>` for this host (or another lease's host), when host labels are on. */
  hostLabel(host: HostIdentity = this.options.host): string | null {
    if (!this.options.labels.hostLabels) return null;
    const name =
      host.name
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, "-")
        .replace(/^-+|-+$/g, "") || host.id.slice(0, 12);
    return `claim:${name}`.slice(0, 50);
  }

  expiresAt(from: Date): string | null {
    if (this.options.holder === "person") return null;
    return new Date(from.getTime() + this.options.lease.ttlMinutes * 60_000).toISOString();
  }

  /**
   * Reads the issue and every lease on it, trusted writers only. With `writer`, a caller without
   * write access is refused before the leases are judged: judging them asks each author's
   * permission, which GitHub answers only to writers.
   */
  async read(ticket: number, writer?: WriterUse): Promise<TicketReading> {
    const thread = await this.options.tracker.readIssueThread(ticket);
    if (!thread) {
      throw new Refusal(
        "not-open",
        `${this.repoName}#${ticket} does not exist (or this token cannot see it). Check the number and --repo: \`ticket-runner board --repo owner/name\` lists the tickets.`,
        { next: "ticket-runner board" },
      );
    }
    let viewer: string;
    if (thread.viewer) {
      viewer = thread.viewer.login;
      this.viewerLogin ??= Promise.resolve(viewer);
      this.trust.remember(viewer, thread.viewer.permission);
    } else {
      viewer = await this.viewer();
    }
    if (writer) await this.requireWriter(viewer, writer);
    return this.reading(ticket, thread, viewer);
  }

  /**
   * What a thread says of the ticket's claims: its lease records (trusted writers only: each author's
   * write access is asked once per Run) and their standing. The thread may come from a read or from
   * the claim write's own answer (ADR 0380).
   */
  async reading(ticket: number, thread: IssueThread, viewer: string): Promise<TicketReading> {
    const { records, ignored } = await readLeases(thread.comments, {
      repo: this.repoName,
      issue: ticket,
      trust: this.trust,
      log: this.options.log,
      warned: this.warned,
    });
    return {
      issue: thread.issue,
      comments: thread.comments,
      viewer,
      records,
      ignored,
      standing: standings(records, this.now()),
      labelActors: thread.labelActors,
      labeledAt: thread.labeledAt,
      bodyEdits: thread.bodyEdits,
    };
  }

  /**
   * The caller must be a writer: a lease from anyone else is ignored by every other reader, so a
   * claim by a non-writer would look won here and be invisible everywhere else.
   */
  async requireWriter(viewer: string, use: WriterUse): Promise<void> {
    const permission = await this.trust.permission(viewer);
    if (this.trust.isWriter(permission)) return;
    throw notAWriter(viewer, permission, this.repoName, use.doing, use.again);
  }
}
