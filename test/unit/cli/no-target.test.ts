/**
 * A command run outside a clone is refused with that same command as the way out: with
 * `--repo owner/name` where the repository is enough, or run from a clone where the command works
 * in one (start, run, init). No token is set, so nothing here could reach GitHub.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "../../../src/cli/command";
import { main } from "../../../src/cli/main";

describe("cli: a command outside a clone names itself as the next command", () => {
  let dir: string;
  before(function () {
    dir = mkdtempSync(join(tmpdir(), "tr-no-target-"));
    // The test means nothing if the temp dir sits inside some git checkout.
    try {
      execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, stdio: "ignore" });
      this.skip();
    } catch {
      // not a clone: good
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function refused(argv: string[]): Promise<string> {
    const errs: string[] = [];
    const io: CliIo = { out: () => undefined, err: (l) => errs.push(l), env: { PATH: process.env.PATH }, cwd: dir };
    assert.equal(await main(argv, io), 2, errs.join("\n"));
    return errs.join("\n");
  }

  for (const [argv, next] of [
    [["claim", "6"], "ticket-runner claim 6 --repo owner/name"],
    [["release", "6", "--run-dir", "/runs/issue-6"], "ticket-runner release 6 --run-dir /runs/issue-6 --repo owner/name"],
    [["board", "--mine", "--json"], "ticket-runner board --mine --json --repo owner/name"],
    [["hand-back", "12"], "ticket-runner hand-back 12 --repo owner/name"],
    [["resume", "6", "--run-dir", "/my runs/6"], "ticket-runner resume 6 --run-dir '/my runs/6' --repo owner/name"],
    [["claim", "6", "--repo", "not a repo"], "ticket-runner claim 6 --repo owner/name"],
  ] as const) {
    it(`ticket-runner ${argv.join(" ")} -> ${next}`, async () => {
      const said = await refused([...argv]);
      assert.ok(said.includes(`\`${next}\``), said);
      if (argv[0] !== "board") assert.doesNotMatch(said, /ticket-runner board/, said);
    });
  }

  for (const [argv, again] of [
    [["start", "6", "--take-over", "--repo", "acme/widgets"], "ticket-runner start 6 --take-over --repo acme/widgets"],
    [["start", "6", "--offline"], "ticket-runner start 6 --offline"],
    [["run", "4", "9"], "ticket-runner run 4 9"],
    [["init"], "ticket-runner init"],
  ] as const) {
    it(`ticket-runner ${argv.join(" ")} works in a clone: cd there, then ${again} (nothing claimed first)`, async () => {
      const said = await refused([...argv]);
      assert.ok(said.includes(`cd <your clone> && ${again}`), said);
      assert.doesNotMatch(said, /ticket-runner board/, said);
      assert.doesNotMatch(said, /claimed/i, said);
    });
  }
});
