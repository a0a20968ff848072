/**
 * How many rounds a repeated race runs: a few in `npm test` (what a contributor runs before each
 * commit), the full count in `npm run test:all` (which sets TICKET_RUNNER_TESTS=all; CI runs it).
 * The few still race real processes every round; the full count is for the rare interleaving.
 */
export function rounds(all: number, quick: number): number {
  return process.env.TICKET_RUNNER_TESTS === "all" ? all : quick;
}
