/**
 * The CLI keeps WebAssembly on Liftoff (ADR 0475): fetch's HTTP parser is a WebAssembly module,
 * and V8's second, TurboFan compile of it cost a `ticket-runner` process ~0.25 CPU-s. And its
 * JavaScript on Sparkplug (ADR 0493): TurboFan's compiles were ~13% of a Run's CPU. A probe
 * loaded beside the CLI compiles a small module and a small function at the process's exit and
 * calls each until V8 has tiered it up, or 10⁷ and 10⁶ times: a bare `node` tiers both up (so the probe can
 * tell), the CLI neither.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { build, stop } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CLI_BUNDLE_FILE } from "../../../src/app/cli-bundle-file";

const ROOT = resolve(__dirname, "../../..");

// (module (func (export "f") (result i32) i32.const 42)); `%` calls need --allow-natives-syntax.
const PROBE = `
process.on("exit", () => {
  const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,5,1,96,0,1,127,3,2,1,0,7,5,1,1,102,0,0,10,6,1,4,0,65,42,11]);
  const f = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f;
  let turbofan = false;
  for (let round = 0; round < 100 && !turbofan; round++) {
    for (let i = 0; i < 1e5; i++) f();
    %WaitForBackgroundOptimization();
    turbofan = %IsTurboFanFunction(f);
  }
  // A plain function's status bits (V8's OptimizationStatus): 64 TurboFan, 32 Maglev, 1 << 15 Sparkplug.
  const g = new Function("x", "let s = 0; for (let i = 0; i < 100; i++) s += i * x; return s;");
  let js = 0;
  for (let round = 0; round < 10 && (js & 96) === 0; round++) {
    for (let i = 0; i < 1e5; i++) g(i);
    %WaitForBackgroundOptimization();
    js = %GetOptimizationStatus(g);
  }
  const jsTier = js & 64 ? "turbofan" : js & 32 ? "maglev" : js & (1 << 15) ? "sparkplug" : "ignition";
  process.stderr.write("\\nPROBE " + JSON.stringify({ turbofan, liftoff: %IsLiftoffFunction(f), jsTier }) + "\\n");
});
`;

interface Probe {
  turbofan: boolean;
  liftoff: boolean;
  jsTier: string;
}

function probe(dir: string, args: string[]): Probe {
  const r = spawnSync(process.execPath, ["--allow-natives-syntax", "--require", "tsx/cjs", "--require", join(dir, "probe.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const line = /^PROBE (.*)$/m.exec(r.stderr);
  assert.ok(line, `no probe answer (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(line[1]!) as Probe;
}

describe("cli: WebAssembly stays on Liftoff (ADR 0475), JavaScript on Sparkplug (ADR 0493)", () => {
  let dir = "";
  before(async function () {
    this.timeout(60_000);
    dir = mkdtempSync(join(tmpdir(), "wasm-tier-"));
    writeFileSync(join(dir, "probe.js"), PROBE);
    // The loader and the CLI's bundle built here as esbuild.mjs builds them, so a clean clone (no dist/) tests them too.
    const common = { bundle: true, platform: "node", target: "node20", format: "cjs", logLevel: "silent" } as const;
    await build({ ...common, absWorkingDir: ROOT, entryPoints: ["src/cli/loader.ts"], outfile: join(dir, "cli.js") });
    await build({ ...common, absWorkingDir: ROOT, entryPoints: ["src/cli/main.ts"], outfile: join(dir, CLI_BUNDLE_FILE) });
    // esbuild's service process ends here, not at this process's exit: no test leaves a process behind.
    await stop();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a bare node tiers the probe's module and function up to TurboFan", function () {
    this.timeout(60_000);
    assert.deepEqual(probe(dir, ["-e", "0"]), { turbofan: true, liftoff: false, jsTier: "turbofan" });
  });

  it("the CLI's own entry keeps the module on Liftoff and the function on Sparkplug", function () {
    this.timeout(60_000);
    assert.deepEqual(probe(dir, ["src/cli/main.ts", "--version"]), { turbofan: false, liftoff: true, jsTier: "sparkplug" });
  });

  it("so does the built CLI, whose loader sets the flags before it compiles the bundle", function () {
    this.timeout(60_000);
    assert.deepEqual(probe(dir, [join(dir, "cli.js"), "--version"]), { turbofan: false, liftoff: true, jsTier: "sparkplug" });
  });
});
