import type { RunJson } from "../../src/core/schemas/run-json";

/** A valid run.json record for acme/widgets; tests override what they look at. */
export function runJsonFixture(overrides: Partial<RunJson> = {}): RunJson {
  return {
    version: 1,
    repo: "acme/widgets",
    issue: 7,
    host: { id: "h", name: "h", kind: "workstation" },
    session: "s",
    run: "r",
    pid: 4242,
    startedAt: "2026-11-30T00:00:00.000Z",
    holder: "person",
    commentId: null,
    worktree: null,
    branch: null,
    offline: false,
    ...overrides,
  };
}
