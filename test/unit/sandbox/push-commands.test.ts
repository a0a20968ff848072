import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePushCommands, updatedRefs } from "../../../src/sandbox/push-commands";

/** Recorded from real git (test/fixtures/sandbox/receive-pack-recorded.json says how). */
const recorded = JSON.parse(readFileSync(join(__dirname, "../../fixtures/sandbox/receive-pack-recorded.json"), "utf8")) as {
  pushes: { what: string; body: string; answer: string }[];
};
const [created, partial] = recorded.pushes.map((p) => ({ body: Buffer.from(p.body, "base64"), answer: Buffer.from(p.answer, "base64") }));

describe("sandbox: a push's commands and receive-pack's report (ADR 0432)", () => {
  it("reads a new branch's command and its side-band report", () => {
    const request = parsePushCommands(created!.body);
    assert.ok(request);
    assert.equal(request.sideBand, true);
    assert.equal(request.commands.length, 1);
    assert.equal(request.commands[0]!.ref, "refs/heads/feature/part");
    assert.equal(request.commands[0]!.old, null);
    assert.match(request.commands[0]!.new ?? "", /^[0-9a-f]{40}$/);
    assert.deepEqual([...updatedRefs(created!.answer, true)!], ["refs/heads/feature/part"]);
  });

  it("a push taken in part: both commands, only the one receive-pack took reported done", () => {
    const request = parsePushCommands(partial!.body);
    assert.deepEqual(
      request?.commands.map((c) => c.ref),
      ["refs/heads/feature/part", "refs/pull/1/head"],
    );
    assert.deepEqual([...updatedRefs(partial!.answer, true)!], ["refs/heads/feature/part"]);
  });

  it("anything that does not read whole is null, so the caller looks at the refs instead", () => {
    assert.equal(parsePushCommands(created!.body.subarray(0, 60)), null, "cut before the flush");
    assert.equal(parsePushCommands(Buffer.from("zzzz")), null);
    assert.equal(parsePushCommands(Buffer.from("0000")), null, "no command at all");
    assert.equal(updatedRefs(partial!.answer.subarray(0, 20), true), null, "an answer cut short");
    assert.equal(updatedRefs(partial!.answer, false), null, "side-band read as plain");
  });
});
