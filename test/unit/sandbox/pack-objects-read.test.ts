/**
 * The pieces of a push's pack the sandbox reads itself (ADR 0491): what a commit and a tree link
 * to only where `git fsck --strict` would take them, deltas applied exactly, and the config that
 * sends a push to receive-pack. Anything not read here is null (index-pack then takes the pack).
 */
import { strict as assert } from "node:assert";
import { objectLinks } from "../../../src/adapters/git/object-links";
import { objectId } from "../../../src/sandbox/object-reader";
import { applyDelta } from "../../../src/adapters/git/pack-entries";
import type { PackedObject } from "../../../src/adapters/git/pack-entries";
import { receiveSetupOf } from "../../../src/sandbox/receive-setup";

const A = "a".repeat(40);
const B = "b".repeat(40);
const WHO = "Ann <ann@example.com> 1700000000 +0000";

function object(type: PackedObject["type"], data: Buffer | string): PackedObject {
  const bytes = typeof data === "string" ? Buffer.from(data, "latin1") : data;
  return { id: objectId(type, bytes), type, data: bytes };
}

function tree(entries: [mode: string, name: string, id: string][]): PackedObject {
  return object("tree", Buffer.concat(entries.flatMap(([m, n, id]) => [Buffer.from(`${m} ${n}\0`, "latin1"), Buffer.from(id, "hex")])));
}

describe("sandbox: a push's objects read in process (ADR 0491)", () => {
  it("a commit links to its tree and parents; malformed headers and idents are not read", () => {
    assert.deepEqual(objectLinks(object("commit", `tree ${A}\nparent ${B}\nauthor ${WHO}\ncommitter ${WHO}\n\nm\n`)), [
      { id: A, type: "tree" },
      { id: B, type: "commit" },
    ]);
    assert.deepEqual(objectLinks(object("commit", `tree ${A}\nauthor ${WHO}\ncommitter ${WHO}\nencoding latin1\n\nm\n`)), [{ id: A, type: "tree" }]);
    for (const bad of [
      `parent ${B}\ntree ${A}\nauthor ${WHO}\ncommitter ${WHO}\n\nm\n`,
      `tree ${A}\nauthor ${WHO}\n\nm\n`,
      `tree ${A}\nauthor Ann <ann@example.com> 01700000000 +0000\ncommitter ${WHO}\n\nm\n`,
      `tree ${A}\nauthor <ann@example.com> 1700000000 +0000\ncommitter ${WHO}\n\nm\n`,
      `tree ${A}\nauthor ${WHO}\ncommitter ${WHO}\nparent ${B}\n\nm\n`,
      `tree ${A}\nauthor ${WHO}\ncommitter ${WHO}\n`,
      `tree ${A.toUpperCase()}\nauthor ${WHO}\ncommitter ${WHO}\n\nm\n`,
    ])
      assert.equal(objectLinks(object("commit", bad)), null, bad);
  });

  it("a tree links to its blobs and subtrees (not gitlinks); bad modes, names, order or a twice-named entry are not read", () => {
    assert.deepEqual(
      objectLinks(
        tree([
          ["100644", "a", A],
          ["40000", "a-dir", B],
          ["160000", "sub", A],
        ]),
      ),
      [
        { id: A, type: "blob" },
        { id: B, type: "tree" },
      ],
    );
    // git orders a directory as if its name ended in "/": "a.txt" < "a/" < "a0".
    assert.ok(
      objectLinks(
        tree([
          ["100644", "a.txt", A],
          ["40000", "a", B],
          ["100644", "a0", A],
        ]),
      ),
    );
    for (const bad of [
      [["100664", "a", A]],
      [["100644", "", A]],
      [["100644", ".git", A]],
      [["40000", "..", B]],
      [
        ["100644", "b", A],
        ["100644", "a", A],
      ],
      [
        ["100644", "a", A],
        ["40000", "a", B],
      ],
    ] as [string, string, string][][])
      assert.equal(objectLinks(tree(bad)), null, JSON.stringify(bad));
  });

  it("a delta applies exactly: copy and insert, sizes checked", () => {
    const base = Buffer.from("hello, world\n");
    // Source size 13, target size 18; copy 7 bytes from 0, insert "there, ", copy 6 from 7.
    const delta = Buffer.concat([Buffer.from([13, 20, 0x90, 7]), Buffer.from([7]), Buffer.from("there, "), Buffer.from([0x91, 7, 6])]);
    assert.equal(applyDelta(base, delta)?.toString(), "hello, there, world\n");
    assert.equal(applyDelta(Buffer.from("short"), delta), null, "the source size must be the base's");
    assert.equal(applyDelta(base, Buffer.concat([Buffer.from([13, 30]), delta.subarray(2)])), null, "the result must be the size it says");
    assert.equal(applyDelta(base, Buffer.from([13, 5, 0x91, 10, 5])), null, "a copy past the base's end");
  });

  it("a config with an fsync setting sends the push to receive-pack", () => {
    assert.ok(receiveSetupOf("core.bare\ntrue\0"));
    assert.equal(receiveSetupOf("core.bare\ntrue\0core.fsync\nloose-object\0"), null);
    assert.equal(receiveSetupOf("core.fsyncobjectfiles\ntrue\0"), null);
  });
});
