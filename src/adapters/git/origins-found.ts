/**
 * The checkouts whose `origin` remote this process has already found (ADR 0481), kept apart from
 * checkout.ts: that file asks git synchronously, and the extension host must load no such module
 * (ADR 0460), while the Run's preflight, which the extension host does load, reads this.
 */
const originsFound = new Set<string>();

/** Records that `checkout` has an `origin` remote (its URL was just read in this process). */
export function noteOriginFound(checkout: string): void {
  originsFound.add(checkout);
}

/** True when this process found `checkout`'s origin remote (the `run` command asks it before the preflight). */
export function originFoundAt(checkout: string): boolean {
  return originsFound.has(checkout);
}
