/** Shared set-up for the claims unit tests: a fake GitHub, real run roots in a temp dir, virtual time. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { createClaimGate, type ClaimProtocol } from "../../../src/core/claims/claim-protocol";
import { renderLeaseComment } from "../../../src/core/claims/lease-comment";
import { Refusal } from "../../../src/core/errors";
import { LEASE_VERSION, type Lease } from "../../../src/core/schemas/lease";
import type { Log, LogFields } from "../../../src/ports/log";
import { FakeClock } from "../../fakes/fake-clock";
import { FakeGitHub } from "../../fakes/fake-tracker";

export const REPO = { owner: "acme", repo: "widgets" };
export const LABELS = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human", hostLabels: true };

export class MemoryLog implements Log {
  lines: { level: string; message: string; fields?: LogFields }[] = [];
  debug(message: string, fields?: LogFields): void {
    this.lines.push({ level: "debug", message, fields });
  }
  info(message: string, fields?: LogFields): void {
    this.lines.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: LogFields): void {
    this.lines.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: LogFields): void {
    this.lines.push({ level: "error", message, fields });
  }
  has(text: string): boolean {
    return this.lines.some((l) => l.message.includes(text) || JSON.stringify(l.fields ?? {}).includes(text));
  }
}

export interface World {
  gh: FakeGitHub;
  clock: FakeClock;
  dir: string;
  log: MemoryLog;
  cleanup(): void;
  /** A claimer: one user on one Host with its own run root (a separate machine) unless `root` is shared. */
  claimer(opts: { user: string; host: string; holder?: "person" | "machine"; root?: string; nonce?: string; settleMs?: number; adoptAcrossHosts?: boolean }): {
    gate: ClaimProtocol;
    root: FsRunRoot;
  };
}

export function makeWorld(): World {
  const clock = new FakeClock();
  const gh = new FakeGitHub(REPO, { now: () => clock.now().getTime() });
  const dir = mkdtempSync(join(tmpdir(), "tr-claims-"));
  const log = new MemoryLog();
  let pid = 1000;
  return {
    gh,
    clock,
    dir,
    log,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
    claimer(o) {
      const root = new FsRunRoot(o.root ?? join(dir, `root-${o.host}`));
      let n = 0;
      const gate = createClaimGate({
        tracker: gh.client(o.user),
        runRoot: root,
        host: { id: `host-${o.host}`, name: o.host, kind: "cloud" },
        clock,
        log,
        labels: LABELS,
        lease: { ttlMinutes: 45, heartbeatMinutes: 30, settleMs: o.settleMs ?? 1500 },
        holder: o.holder ?? "machine",
        runId: `run-${o.host}`,
        pid: pid++,
        isAlive: async () => false,
        nonce: o.nonce ? () => `${o.nonce}${String(n++).padStart(4, "0")}` : undefined,
        adoptAcrossHosts: o.adoptAcrossHosts,
      });
      return { gate, root };
    },
  };
}

export function lease(over: Partial<Lease> = {}): Lease {
  return {
    version: LEASE_VERSION,
    repo: "acme/widgets",
    issue: 12,
    host: { id: "host-x", name: "x", kind: "cloud" },
    session: "session-x",
    run: "run-x",
    holder: "machine",
    user: "bob",
    claimedAt: "2026-09-17T08:00:00.000Z",
    expiresAt: "2026-09-17T08:45:00.000Z",
    nonce: "aaaaaaaaaaaaaaaa",
    state: "claimed",
    ...over,
  };
}

export function leaseBody(over: Partial<Lease> = {}): string {
  return renderLeaseComment(lease(over));
}

/** The Refusal a claim call ends with; fails the test when it resolves or throws anything else. */
export async function refusal(p: Promise<unknown>): Promise<Refusal> {
  try {
    await p;
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  assert.fail("expected a refusal");
}
