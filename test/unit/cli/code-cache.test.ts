/**
 * The CLI's V8 code cache (ADR 0481): a bundle run through `runWithCodeCache` is its own main
 * module, writes a cache only when it says so and no cache was taken, takes that cache in the next
 * process, and never takes one made from other bytes (V8 itself checks only the source's length).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { codeCacheDir, codeCacheFile, ensureCodeCacheDir, readCodeCache, writeCodeCache } from "../../../src/cli/code-cache";

const ROOT = resolve(__dirname, "../../..");

/** A bundle that says whether it is the main module and whether a writer was offered, then (when told) keeps its code. */
function bundleText(tag: string): string {
  return `#!/usr/bin/env node
"use strict";
const { codeCacheWorthKeeping } = require(${JSON.stringify(join(ROOT, "src/cli/code-cache.ts"))});
const offered = typeof globalThis[Symbol.for("ticket-runner.cli.write-code-cache")] === "function";
process.stdout.write(JSON.stringify({ tag: ${JSON.stringify(tag)}, main: require.main === module, file: __filename, offered }));
if (process.env.KEEP === "1") codeCacheWorthKeeping();
`;
}

/** Runs the bundle in a fresh process the way dist/cli.js does, with HOME set to `home`. */
function runBundle(bundle: string, home: string, keep: boolean): { tag: string; main: boolean; file: string; offered: boolean } {
  // A file, not `node -e`: like dist/cli.js, the driver is the process's main module.
  const driver = join(bundle, "..", "driver.js");
  writeFileSync(driver, `require(${JSON.stringify(join(ROOT, "src/cli/code-cache.ts"))}).runWithCodeCache(${JSON.stringify(bundle)}, process.env, module);`);
  const r = spawnSync(process.execPath, ["--require", "tsx/cjs", driver], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, HOME: home, KEEP: keep ? "1" : "0" },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { tag: string; main: boolean; file: string; offered: boolean };
}

function caches(home: string): string[] {
  return readdirSync(codeCacheDir({ HOME: home })!).filter((f) => f.endsWith(".v8cache"));
}

describe("cli: the code cache", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tr-code-cache-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is written when the bundle says so, taken by the next process, and never for other bytes of the same length", function () {
    this.timeout(60_000);
    const bundle = join(dir, "cli-bundle.js");
    writeFileSync(bundle, bundleText("aaaa"));

    const first = runBundle(bundle, dir, false);
    assert.deepEqual(first, { tag: "aaaa", main: true, file: bundle, offered: true });
    assert.deepEqual(caches(dir), [], "no cache until the bundle says its code is worth keeping");

    assert.equal(runBundle(bundle, dir, true).offered, true);
    assert.equal(caches(dir).length, 1, "the cache is written");
    assert.equal(runBundle(bundle, dir, true).offered, false, "the next process takes the cache and writes none");

    // Same length, other bytes: V8 would take the old cache; the file's name keeps it from doing so.
    writeFileSync(bundle, bundleText("bbbb"));
    const changed = runBundle(bundle, dir, true);
    assert.equal(changed.tag, "bbbb", "the changed bundle runs its own code");
    assert.equal(changed.offered, true);
    assert.equal(caches(dir).length, 2);
  });

  it("is not used without an absolute HOME, and the bundle still runs", function () {
    this.timeout(60_000);
    assert.equal(codeCacheDir({}), null);
    assert.equal(codeCacheDir({ HOME: "relative" }), null);
    const bundle = join(dir, "cli-bundle.js");
    writeFileSync(bundle, bundleText("cccc"));
    const r = runBundle(bundle, "relative", true);
    assert.deepEqual({ main: r.main, offered: r.offered }, { main: true, offered: false });
  });

  it("keeps the four newest caches", () => {
    const cacheDir = join(dir, "caches");
    const bundles = [0, 1, 2, 3, 4, 5].map((i) => Buffer.from(`bundle ${i}`));
    mkdirSync(cacheDir);
    bundles.forEach((b, i) => {
      const file = codeCacheFile(cacheDir, b);
      writeCodeCache(file, Buffer.from(`cache ${i}`));
      utimesSync(file, 1_000 + i, 1_000 + i);
    });
    // Each write prunes: the newest (just written) and the three next newest stay.
    const left = readdirSync(cacheDir);
    assert.equal(left.length, 4);
    for (const b of bundles.slice(2)) assert.ok(left.includes(codeCacheFile(cacheDir, b).slice(cacheDir.length + 1)));
    for (const f of left) assert.equal(statSync(join(cacheDir, f)).mode & 0o777, 0o600, "only the owner reads or writes a cache");
  });

  it("is neither taken nor written through a link, in a folder others can write, or from a file with another name", () => {
    // The agents may write the rest of ~/.cache (ADR 0341): a link planted there must not lead the Run to their files.
    const home = join(dir, "home");
    const cacheDir = codeCacheDir({ HOME: home })!;
    const elsewhere = join(home, ".cache", "agent-writable");
    mkdirSync(elsewhere, { recursive: true });
    mkdirSync(join(cacheDir, ".."), { recursive: true });
    symlinkSync(elsewhere, cacheDir);
    assert.equal(ensureCodeCacheDir(cacheDir), false, "the cache folder is a link");
    rmSync(cacheDir);
    rmSync(join(cacheDir, ".."), { recursive: true });
    symlinkSync(elsewhere, join(cacheDir, ".."));
    assert.equal(ensureCodeCacheDir(cacheDir), false, "~/.cache/ticket-runner is a link");
    rmSync(join(cacheDir, ".."));

    assert.equal(ensureCodeCacheDir(cacheDir), true, "made when missing");
    assert.equal(statSync(cacheDir).mode & 0o777, 0o700);
    chmodSync(cacheDir, 0o770);
    assert.equal(ensureCodeCacheDir(cacheDir), false, "a folder its group can write");
    chmodSync(cacheDir, 0o700);

    const file = codeCacheFile(cacheDir, Buffer.from("bundle"));
    writeCodeCache(file, Buffer.from("cache"));
    assert.equal(readCodeCache(file)?.toString(), "cache", "the Run's own file is taken");
    linkSync(file, join(elsewhere, "second-name"));
    assert.equal(readCodeCache(file), undefined, "a file with a second name (a hard link) is not");
    rmSync(join(elsewhere, "second-name"));
    chmodSync(file, 0o620);
    assert.equal(readCodeCache(file), undefined, "a file its group can write is not");
    rmSync(file);
    writeFileSync(join(elsewhere, "planted"), "planted", { mode: 0o600 });
    symlinkSync(join(elsewhere, "planted"), file);
    assert.equal(readCodeCache(file), undefined, "a link is not followed");
    assert.ok(existsSync(join(elsewhere, "planted")));
  });
});
