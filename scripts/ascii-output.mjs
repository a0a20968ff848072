// Makes a bundle's bytes ASCII (ADR 0490). esbuild escapes every non-ASCII character of the code
// (its default charset), but keeps comments as written: one "—" in a comment and Node decodes the
// whole 2.4 MB CLI bundle as UTF-8 into a two-byte string, ~14 ms of every `ticket-runner`
// process's start on this VM, against a one-byte string at half that for an ASCII file. Each
// UTF-16 unit left above 0x7F becomes `\uXXXX`: the same text in a comment, and the same value in a
// string, a regular expression or an identifier, should one ever be left there.
import { readFileSync, writeFileSync } from "node:fs";

/** The text with every UTF-16 unit above 0x7F written as `\uXXXX`. */
export function asciiOnly(text) {
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export const asciiOutput = {
  name: "ascii-output",
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length > 0 || !build.initialOptions.outfile) return;
      const file = build.initialOptions.outfile;
      const bytes = readFileSync(file);
      if (!bytes.some((b) => b > 0x7f)) return;
      writeFileSync(file, asciiOnly(bytes.toString("utf8")));
    });
  },
};
