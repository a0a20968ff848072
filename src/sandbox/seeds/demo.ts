/**
 * The built-in `demo` seed: the demo Target (demo/shop) with the project and six tickets from
 * demo-project.ts, one per ending, and the three workflow labels. The sandbox opens the issues as
 * its admin, so their `ready-for-agent` label comes from a trusted writer.
 */
import type { CreateRepoSpec } from "../repos-admin";
import { DEMO_CI_COMMAND, DEMO_FILES, DEMO_ISSUES, DEMO_OWNER, DEMO_REPO } from "./demo-project";
import type { DemoIssue } from "./demo-project";

export { DEMO_OWNER, DEMO_REPO };

export const demoRepo: CreateRepoSpec = {
  owner: DEMO_OWNER,
  name: DEMO_REPO,
  defaultBranch: "main",
  files: DEMO_FILES,
  ciCommand: DEMO_CI_COMMAND,
  labels: [
    { name: "ready-for-agent", color: "0e8a16", description: "An agent may pick this up" },
    { name: "in-progress", color: "fbca04", description: "Claimed by a Run" },
    { name: "ready-for-human", color: "d93f0b", description: "Handed to a person" },
  ],
};

/** Issues the demo seed opens, oldest first: #1 to #6. */
export const demoIssues: readonly DemoIssue[] = DEMO_ISSUES;
