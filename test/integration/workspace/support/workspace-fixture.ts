/** A Target clone with a GitWorkspace over it, for the workspace integration tests. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GitWorkspace } from "../../../../src/adapters/git/git-workspace";
import type { GitWorkspaceOptions } from "../../../../src/adapters/git/git-workspace";
import { NodeHost } from "../../../../src/adapters/node-host";
import type { StateFile } from "../../../../src/core/schemas/state-file";
import { TEST_IDENTITY } from "../../../support/git-fixtures";

/** Keeps the machine's own git config out of the product's git calls too. */
export const ISOLATED_GIT_ENV = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

export function workspaceOn(root: string, extra: Partial<GitWorkspaceOptions> = {}): GitWorkspace {
  return new GitWorkspace({ root, host: new NodeHost(), env: ISOLATED_GIT_ENV, identity: TEST_IDENTITY, ...extra });
}

/** A real NodeHost that believes it is another workstation (its own machine-id file). */
export async function otherWorkstation(dir: string, machineId: string, name = "other-desk"): Promise<NodeHost> {
  const file = join(dir, `machine-id-${machineId}`);
  await writeFile(file, `${machineId}\n`);
  return new NodeHost({ machineIdFiles: [file], env: { TICKET_RUNNER_HOST_NAME: name } });
}

export function stateFor(ticket: number, over: Partial<StateFile> = {}): StateFile {
  return {
    ticket,
    branch: `agent/${ticket}-work`,
    state: "claimed",
    fixUsed: false,
    pullRequest: null,
    title: null,
    runId: "2026-01-01T00-00-00-000",
    version: "0.1.0",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...over,
  };
}
