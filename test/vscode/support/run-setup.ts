// --setup module for the Run's in-host tests (scripts/vscode/run-in-host-tests.ts --setup
// test/vscode/support/run-setup.ts): starts a sandbox, seeds the demo project for a Run with the
// demo agent, clones it into a temp folder with a `.code-workspace` naming it (a multi-root window,
// where worktree folders can be added: docs/adr/0023-worktree-folders.md), and hands the extension
// host the API URL, the user's token, a run root and the seed through its environment.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox } from "../../../src/sandbox/start";
import { seedRunTarget, type RunTarget } from "../../support/run-seed";

export const RUN_SEED_ENV = "TICKET_RUNNER_RUN_SEED";

/** What the in-host Run tests learn about the seeded sandbox. */
export type RunSeedInfo = RunTarget;

export async function setup(): Promise<{ env: Record<string, string>; workspace: string; teardown: () => Promise<void> }> {
  const scratch = mkdtempSync(join(tmpdir(), "tr-run-host-"));
  const sandbox = await startSandbox({ quiet: true });
  const teardown = async (): Promise<void> => {
    await sandbox.stop();
    if (process.env["TICKET_RUNNER_KEEP_TEMP"] !== "1") rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const target = await seedRunTarget(sandbox, scratch);
    return {
      env: {
        TICKET_RUNNER_HOST_NAME: "desk",
        TICKET_RUNNER_API_URL: sandbox.apiUrl,
        TICKET_RUNNER_TOKEN: target.userToken,
        TICKET_RUNNER_RUN_ROOT: join(scratch, "runs"),
        [RUN_SEED_ENV]: JSON.stringify(target),
      },
      workspace: target.workspaceFile,
      teardown,
    };
  } catch (e) {
    await teardown();
    throw e;
  }
}
