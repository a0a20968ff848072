/**
 * What `npm test` (what a contributor runs before each commit) runs of a long test, and what
 * `npm run test:all` runs (it sets TICKET_RUNNER_TESTS=all; CI runs it). ADR 0191, ADR 0370.
 */
import type { AsyncFunc } from "mocha";

/** True in `npm run test:all`. */
export function allTests(): boolean {
  return process.env.TICKET_RUNNER_TESTS === "all";
}

/**
 * How many rounds a repeated race runs: a few in `npm test`, the full count in `npm run test:all`.
 * The few still race real processes every round; the full count is for the rare interleaving.
 */
export function rounds(all: number, quick: number): number {
  return allTests() ? all : quick;
}

/**
 * A long scenario whose layer a shorter test in the same file covers in `npm test`: defined only
 * in `npm run test:all`, which always runs it (the demo driven by each real agent CLI, say).
 */
export function itInTestAll(title: string, fn: AsyncFunc): void {
  if (allTests()) it(title, fn);
}
