/**
 * The CLI evaluates only the command it is asked for (ADR 0440): `--version` and `help` load none
 * of the Run's or the sandbox's modules, and each row of the table loads its own command.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { commandTable } from "../../../src/cli/command-table";

const ROOT = resolve(__dirname, "../../..");

/** The `src/` modules a fresh process has loaded after `main(argv)`, relative to the repository. */
function loadedAfter(argv: string[]): string[] {
  const script = `
    const { main } = require("./src/cli/main.ts");
    const io = { out: () => {}, err: () => {}, env: {}, cwd: "/" };
    main(${JSON.stringify(argv)}, io).then((code) => {
      const mine = Object.keys(require.cache).filter((k) => k.startsWith(${JSON.stringify(ROOT + "/src/")})).map((k) => k.slice(${ROOT.length + 1}));
      process.stdout.write(JSON.stringify({ code, mine }));
    });`;
  const r = spawnSync(process.execPath, ["--require", "tsx/cjs", "-e", script], { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { code: number; mine: string[] };
  assert.equal(out.code, 0);
  return out.mine;
}

describe("cli: only the command asked for is loaded", () => {
  it("--version and help load neither the Run's machinery nor the sandbox", function () {
    this.timeout(60_000);
    for (const argv of [["--version"], ["help"]]) {
      const mine = loadedAfter(argv);
      for (const heavy of ["src/app/compose-run.ts", "src/core/run/run.ts", "src/sandbox/start.ts", "src/adapters/git/git-workspace.ts"])
        assert.ok(!mine.includes(heavy), `${argv.join(" ")} loaded ${heavy}`);
    }
  });

  it("run --help loads the Run's command, and not the sandbox", function () {
    this.timeout(60_000);
    const mine = loadedAfter(["run", "--help"]);
    assert.ok(mine.includes("src/cli/commands/run.ts"));
    assert.ok(!mine.includes("src/sandbox/start.ts"), "run loaded the sandbox");
  });

  it("every row of the table loads a command with its usage, named by the row", () => {
    const names = commandTable.map((c) => c.name);
    assert.equal(new Set(names).size, names.length, "no name twice");
    for (const entry of commandTable) {
      const command = entry.load();
      assert.match(command.usage, new RegExp(`^ticket-runner ${entry.name}\\b`), `${entry.name}'s usage starts with its name`);
      assert.equal(typeof command.run, "function");
    }
  });
});
