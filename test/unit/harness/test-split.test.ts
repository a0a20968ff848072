/**
 * `npm test` runs a slice of every layer; `npm run test:all` (CI's `.ci/run`) runs every test file,
 * whatever `npm test` leaves out (ADR 0370). Read from package.json's scripts as npm runs them:
 * each `npm run` followed, each mocha command's files, `--ignore`s and environment.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "../../..");
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
/** The mocha flags that take a value (the rest are switches). */
const VALUE_FLAGS = new Set(["--jobs", "--timeout", "--ignore", "--grep", "--reporter", "--require", "--config", "--slow"]);

interface MochaRun {
  script: string;
  env: Record<string, string>;
  specs: string[];
  ignores: string[];
}

/** A command's words, as the shell splits them (double or single quotes keep a glob whole). */
export function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** Every mocha command `npm run <script>` runs, `npm run` followed, with the environment set before it. */
export function mochaRuns(scripts: Record<string, string>, script: string, env: Record<string, string> = {}): MochaRun[] {
  const body = scripts[script];
  assert.ok(body !== undefined, `package.json has no script ${script}`);
  return body.split("&&").flatMap((part) => {
    const w = words(part);
    const own = { ...env };
    for (let m = /^([A-Z_]+)=(.*)$/.exec(w[0] ?? ""); m; m = /^([A-Z_]+)=(.*)$/.exec(w[0] ?? "")) {
      own[m[1]!] = m[2]!;
      w.shift();
    }
    if (w[0] === "npm" && w[1] === "run") return mochaRuns(scripts, w[2]!, own);
    if (w[0] !== "mocha") return [];
    const run: MochaRun = { script, env: own, specs: [], ignores: [] };
    for (let i = 1; i < w.length; i++) {
      if (w[i] === "--ignore") run.ignores.push(w[++i]!);
      else if (VALUE_FLAGS.has(w[i]!)) i++;
      else if (!w[i]!.startsWith("-")) run.specs.push(w[i]!);
    }
    return [run];
  });
}

/** A mocha glob as a whole-path pattern: `**` any folders, `*` within one. */
function globPattern(glob: string): RegExp {
  const body = glob
    .split(/(\*\*\/|\*\*|\*)/)
    .map((part) => (part === "**/" ? "(?:.*/)?" : part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** The files `runs` run, out of `files` (paths from the repository's root). */
export function filesRun(runs: readonly MochaRun[], files: readonly string[]): Set<string> {
  const run = new Set<string>();
  for (const r of runs) {
    const specs = r.specs.map(globPattern);
    const ignores = r.ignores.map(globPattern);
    for (const f of files) if (specs.some((s) => s.test(f)) && !ignores.some((i) => i.test(f))) run.add(f);
  }
  return run;
}

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".test.ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort();
}

describe("harness: what npm test and npm run test:all run", () => {
  const files = [...testFiles("test/integration"), ...testFiles("test/reliability")];

  it("test:all runs every integration and reliability test file, so nothing npm test leaves out is dropped from CI", () => {
    const all = filesRun(mochaRuns(SCRIPTS, "test:all"), files);
    assert.deepEqual(
      files.filter((f) => !all.has(f)),
      [],
      "run by neither npm test nor test:all",
    );
  });

  it("test:all runs with TICKET_RUNNER_TESTS=all every file whose long tests or full counts it decides (test/support/rounds.ts)", () => {
    const gated = files.filter((f) => readFileSync(join(ROOT, f), "utf8").includes("support/rounds"));
    assert.ok(gated.length > 0);
    for (const r of mochaRuns(SCRIPTS, "test:all")) {
      for (const f of filesRun([r], gated)) assert.equal(r.env.TICKET_RUNNER_TESTS, "all", `${r.script} runs ${f} without TICKET_RUNNER_TESTS=all`);
    }
  });

  it("npm test runs a file of every integration folder and the quick reliability suites, at their small counts", () => {
    const runs = mochaRuns(SCRIPTS, "test");
    const quick = filesRun(runs, files);
    const folders = new Set(
      files.filter((f) => f.startsWith("test/integration/") && !f.startsWith("test/integration/real-agent/")).map((f) => f.split("/")[2]),
    );
    for (const folder of folders)
      assert.ok(
        [...quick].some((f) => f.startsWith(`test/integration/${folder}/`)),
        `npm test runs nothing of test/integration/${folder}`,
      );
    assert.ok([...quick].some((f) => f.startsWith("test/reliability/quick/")));
    for (const r of runs) assert.equal(r.env.TICKET_RUNNER_TESTS, undefined, `${r.script} sets TICKET_RUNNER_TESTS`);
  });

  it("finds a file neither command runs, an --ignore followed through npm run, and an environment set before npm run", () => {
    const scripts = {
      test: "npm run build && npm run quick",
      build: "node esbuild.mjs",
      quick: 'mocha --parallel --jobs 4 "test/x/**/*.test.ts" --ignore test/x/long.test.ts --ignore "test/x/skipped/**"',
      all: "TICKET_RUNNER_TESTS=all npm run quick && mocha --timeout 9 test/x/long.test.ts",
    };
    const some = ["test/x/a.test.ts", "test/x/deep/b.test.ts", "test/x/long.test.ts", "test/x/skipped/c.test.ts"];
    assert.deepEqual([...filesRun(mochaRuns(scripts, "test"), some)], ["test/x/a.test.ts", "test/x/deep/b.test.ts"]);
    const all = mochaRuns(scripts, "all");
    assert.deepEqual(
      all.map((r) => r.env.TICKET_RUNNER_TESTS),
      ["all", undefined],
    );
    assert.deepEqual(
      some.filter((f) => !filesRun(all, some).has(f)),
      ["test/x/skipped/c.test.ts"],
    );
  });
});
