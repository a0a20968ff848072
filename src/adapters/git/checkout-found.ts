/**
 * What `ticket-runner run` already asked git about its checkout, in this process, before the
 * preflight asks the same (ADRs 0481, 0490): each ask is a git process on a Run's start. Kept apart
 * from checkout.ts: that file asks git synchronously, and the extension host must load no such
 * module (ADR 0460), while the Run's preflight, which the extension host does load, reads this.
 */
import type { CloneStore } from "./clone-store";

const originsFound = new Set<string>();

/** Records that `checkout` has an `origin` remote (its URL was just read in this process). */
export function noteOriginFound(checkout: string): void {
  originsFound.add(checkout);
}

/** True when this process found `checkout`'s origin remote (the `run` command asks it before the preflight). */
export function originFoundAt(checkout: string): boolean {
  return originsFound.has(checkout);
}

/** git's answer to the preflight's own `rev-parse` (the top, the absolute git directory, the clone's store). */
export interface TopFound {
  top: string;
  gitDir: string;
  store: CloneStore;
}

const topsFound = new Map<string, TopFound>();

/** Records the answer `run` got for the checkout whose top is `found.top`. */
export function noteTopFound(found: TopFound): void {
  topsFound.set(found.top, found);
}

/** The answer for the checkout at `top`, once: a later preflight in this process asks git again. */
export function takeTopFound(top: string): TopFound | undefined {
  const found = topsFound.get(top);
  topsFound.delete(top);
  return found;
}
