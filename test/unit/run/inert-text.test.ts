import { strict as assert } from "node:assert";
import { inertMarkdown, inertReferences } from "../../../src/core/inert-text";
import { closingReferences } from "../../../src/sandbox/pull-ops";

const ZWSP = "\u200B";
const repo = { owner: "demo", name: "shop" };

describe("inert text (issue and agent text in what Ticket Runner posts)", () => {
  it("closing keywords before any reference form stop being keywords, and read the same", () => {
    for (const text of ["fixes #6", "Closes: #6", "RESOLVED demo/shop#6", "fixed https://github.com/demo/shop/issues/6", "close GH-6", "fix:#6"]) {
      const out = inertReferences(text);
      assert.deepEqual(closingReferences(out, repo), [], `${text} -> ${out}`);
      assert.equal(out.replaceAll(ZWSP, ""), text);
    }
  });

  it("@mentions and cross-repository references notify nobody; an e-mail address and plain words stay as they are", () => {
    assert.equal(inertReferences("thanks @eve and @org/team"), `thanks @${ZWSP}eve and @${ZWSP}org/team`);
    assert.equal(inertReferences("see other/repo#3"), `see other/repo#${ZWSP}3`);
    assert.equal(inertReferences("mail a@b.c; the fix is in; closes the door"), "mail a@b.c; the fix is in; closes the door");
  });

  it("Markdown and HTML read as themselves: no image beacon, link, command link or bare URL", () => {
    const out = inertMarkdown("![x](https://evil.example/b.png) <img src=x> [go](command:workbench.action.terminal.new) www.evil.example");
    assert.ok(!/!\[|\]\(|(^|[^\\])<img|https:\/\/|www\./.test(out), out);
    assert.equal(
      out.replace(/\\(.)/g, "$1").replaceAll(ZWSP, ""),
      "![x](https://evil.example/b.png) <img src=x> [go](command:workbench.action.terminal.new) www.evil.example",
    );
  });
});
