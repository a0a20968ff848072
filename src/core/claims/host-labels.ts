/**
 * The `claim:<host>` labels a claim's write takes off, so that with `hostLabels` on the issue
 * carries the current holder's Host label only. A take-over (or takeover-stale) ends the displaced
 * leases, and adopting a Stranded claim moves its lease to this Host: their Hosts' labels would
 * otherwise outlive them. They ride in the claim's one IssueWrite, never in a write of their own.
 */
import type { Lease } from "../schemas/lease";
import type { ClaimContext } from "./claim-context";
import type { LeaseRecord } from "./lease-standing";

/**
 * Labels of the Hosts named in `leaving` that are on the issue now, except this Host's own (the
 * write adds it) and any a live lease staying on the issue still names (its holder needs it).
 */
export function leavingHostLabels(ctx: ClaimContext, issueLabels: readonly string[], leaving: readonly Lease[], live: readonly LeaseRecord[]): string[] {
  const own = ctx.hostLabel();
  const gone = new Set(leaving.map((l) => l.nonce));
  const kept = new Set(live.flatMap((r) => (r.lease && !gone.has(r.lease.nonce) ? [ctx.hostLabel(r.lease.host)] : [])));
  const out: string[] = [];
  for (const lease of leaving) {
    const label = ctx.hostLabel(lease.host);
    if (!label || label === own || kept.has(label) || out.includes(label) || !issueLabels.includes(label)) continue;
    out.push(label);
  }
  return out;
}
