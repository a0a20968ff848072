/** Which body edits a writer's label approved (ADR 0163): GitHub's times have whole seconds. */
import { strict as assert } from "node:assert";
import { editedAfterLabel } from "../../../src/core/claims/body-edits";
import type { BodyHistory, Permission } from "../../../src/ports/tracker";

const roles: Record<string, Permission> = { wendy: "write", mallory: "read" };
const permissionOf = (user: string) => Promise.resolve(roles[user] ?? "none");
const history = (h: BodyHistory) => ({ bodyHistory: () => Promise.resolve(h) });

describe("editedAfterLabel", () => {
  it("an outsider's edit after the label holds it; one before it does not", async () => {
    const edits = [
      { editor: "wendy", editedAt: "2026-12-01T10:00:00Z" },
      { editor: "mallory", editedAt: "2026-12-01T10:00:05Z" },
    ];
    assert.equal(await editedAfterLabel(history({ labeledAt: "2026-12-01T10:00:03Z", edits }), permissionOf, 1, "ready"), "mallory");
    assert.equal(await editedAfterLabel(history({ labeledAt: "2026-12-01T10:00:06Z", edits }), permissionOf, 1, "ready"), null);
  });

  it("an outsider's edit in the label's second holds it, whatever order the versions are listed in", async () => {
    const original = { editor: "wendy", editedAt: "2026-12-01T10:00:00Z" };
    const edit = { editor: "mallory", editedAt: "2026-12-01T10:00:00Z" };
    for (const edits of [
      [original, edit],
      [edit, original],
    ]) {
      assert.equal(await editedAfterLabel(history({ labeledAt: "2026-12-01T10:00:00Z", edits }), permissionOf, 1, "ready"), "mallory");
    }
  });

  it("a deleted account's edit after the label holds it", async () => {
    const edits = [{ editor: null, editedAt: "2026-12-01T10:00:05Z" }];
    assert.equal(await editedAfterLabel(history({ labeledAt: "2026-12-01T10:00:00Z", edits }), permissionOf, 1, "ready"), "a deleted account");
  });
});
