// --setup module for the board's in-host tests and screenshots (scripts/vscode/run-in-host-tests.ts
// --setup test/vscode/support/board-setup.ts): starts a sandbox, seeds one ticket in each board
// state, makes a workspace folder whose git remote is the sandbox repository, and hands the
// extension host the API URL, ana's token, the run root and the Host name through its environment.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveHostIdentity } from "../../../src/adapters/node-host";
import { startSandbox } from "../../../src/sandbox/start";
import { seedBoard, type SeededBoard } from "../../support/board-seed";

export const BOARD_SEED_ENV = "TICKET_RUNNER_BOARD_SEED";

/** What the in-host board tests learn about the seeded sandbox. */
export interface BoardSeedInfo {
  apiUrl: string;
  adminToken: string;
  tickets: SeededBoard["tickets"];
  leaseUrls: SeededBoard["leaseUrls"];
  seededAt: SeededBoard["seededAt"];
}

export async function setup(opts: { everyMarker?: boolean } = {}): Promise<{ env: Record<string, string>; workspace: string; teardown: () => Promise<void> }> {
  const scratch = mkdtempSync(join(tmpdir(), "tr-board-host-"));
  const env = { TICKET_RUNNER_HOST_NAME: "desk" };
  const sandbox = await startSandbox({ quiet: true });
  try {
    const seeded = await seedBoard(sandbox, resolveHostIdentity({ env: { ...process.env, ...env } }), {
      runRoot: join(scratch, "runs"),
      everyMarker: opts.everyMarker,
    });
    const workspace = join(scratch, "shop");
    const git = (args: string[]): void => {
      const r = spawnSync("git", args, { cwd: scratch, env: { ...process.env, LC_ALL: "C" }, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
    };
    git(["init", "-q", workspace]);
    git(["-C", workspace, "remote", "add", "origin", sandbox.gitUrl(seeded.repo.owner, seeded.repo.repo)]);
    const info: BoardSeedInfo = {
      apiUrl: sandbox.apiUrl,
      adminToken: sandbox.adminToken,
      tickets: seeded.tickets,
      leaseUrls: seeded.leaseUrls,
      seededAt: seeded.seededAt,
    };
    return {
      env: {
        ...env,
        TICKET_RUNNER_API_URL: sandbox.apiUrl,
        TICKET_RUNNER_TOKEN: seeded.tokens.ana,
        TICKET_RUNNER_RUN_ROOT: seeded.runRoot,
        [BOARD_SEED_ENV]: JSON.stringify(info),
      },
      workspace,
      teardown: async () => {
        await sandbox.stop();
        rmSync(scratch, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await sandbox.stop();
    rmSync(scratch, { recursive: true, force: true });
    throw e;
  }
}
