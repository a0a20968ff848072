import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import type { PluginBuild } from "esbuild";
import { asciiOnly, asciiOutput } from "../../../scripts/ascii-output.mjs";

const SOURCE = 'var s = "a—b😀"; // a dash — and dots…\nvar r = /—+/.test("——"); s + r;';
const ascii = (bytes: Buffer) => !bytes.some((b) => b > 0x7f);

describe("the CLI bundle's bytes are ASCII (ADR 0490)", () => {
  it("writes what esbuild leaves above 0x7F (comments) as \\uXXXX, which means the same wherever it stands", () => {
    const out = asciiOnly(SOURCE);
    assert.ok(ascii(Buffer.from(out, "utf8")));
    assert.equal(new Script(out).runInNewContext(), new Script(SOURCE).runInNewContext());
  });

  it("the build's plugin rewrites the bundle it wrote, and leaves it be after a failed build", () => {
    const dir = mkdtempSync(join(tmpdir(), "tr-ascii-"));
    try {
      const file = join(dir, "bundle.js");
      const end = (errors: unknown[]) =>
        void asciiOutput.setup({
          initialOptions: { outfile: file },
          onEnd: (callback: (r: { errors: unknown[] }) => void) => callback({ errors }),
        } as unknown as PluginBuild);
      writeFileSync(file, SOURCE);
      end([{ text: "failed" }]);
      assert.equal(readFileSync(file, "utf8"), SOURCE);
      end([]);
      assert.ok(ascii(readFileSync(file)));
      assert.equal(new Script(readFileSync(file, "utf8")).runInNewContext(), new Script(SOURCE).runInNewContext());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
