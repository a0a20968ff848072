/**
 * The CLI keeps WebAssembly on Liftoff (ADR 0475): fetch's HTTP parser is a WebAssembly module,
 * and V8's second, TurboFan compile of it cost a `ticket-runner` process ~0.25 CPU-s. A probe
 * loaded beside the CLI compiles a small module at the process's exit and calls it until V8 has
 * tiered it up, or 10⁷ times: a bare `node` tiers it up (so the probe can tell), the CLI never does.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

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
  process.stderr.write("\\nPROBE " + JSON.stringify({ turbofan, liftoff: %IsLiftoffFunction(f) }) + "\\n");
});
`;

function probe(dir: string, args: string[]): { turbofan: boolean; liftoff: boolean } {
  const r = spawnSync(process.execPath, ["--allow-natives-syntax", "--require", "tsx/cjs", "--require", join(dir, "probe.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const line = /^PROBE (.*)$/m.exec(r.stderr);
  assert.ok(line, `no probe answer (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(line[1]!) as { turbofan: boolean; liftoff: boolean };
}

describe("cli: WebAssembly stays on Liftoff (ADR 0475)", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "wasm-tier-"));
    writeFileSync(join(dir, "probe.js"), PROBE);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a bare node tiers the probe's module up to TurboFan", function () {
    this.timeout(60_000);
    assert.deepEqual(probe(dir, ["-e", "0"]), { turbofan: true, liftoff: false });
  });

  it("the CLI's own entry keeps it on Liftoff", function () {
    this.timeout(60_000);
    assert.deepEqual(probe(dir, ["src/cli/main.ts", "--version"]), { turbofan: false, liftoff: true });
  });
});
