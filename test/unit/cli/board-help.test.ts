/** `ticket-runner board --help` lists every section the board model has, in the board's order. */
import assert from "node:assert/strict";
import { SECTION_ORDER, SECTION_TITLES } from "../../../src/core/board/build";
import type { CliIo } from "../../../src/cli/command";
import { main } from "../../../src/cli/main";

describe("cli: board --help", () => {
  it("names every board section, in the order the board shows them", async () => {
    const outs: string[] = [];
    const io: CliIo = { out: (l) => outs.push(l), err: (l) => assert.fail(l), env: {}, cwd: "/" };
    assert.equal(await main(["board", "--help"], io), 0);
    const help = outs.join("\n");
    const titles = SECTION_ORDER.map((id) => SECTION_TITLES[id]);
    assert.ok(titles.includes("Blocked"), "the board has a Blocked section");
    let from = -1;
    for (const title of titles) {
      const at = help.indexOf(title, from + 1);
      assert.ok(at > from, `"${title}" is missing or out of order in:\n${help}`);
      from = at;
    }
  });
});
