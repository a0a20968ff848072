import * as assert from "node:assert/strict";
import { activeApi, extension } from "../support/extension";
import { recordFigure } from "../support/figures";

// This file runs first (files run in name order): nothing has opened the view or run a command yet.
describe("activation", () => {
  it("is lazy: not active before its view opens or a command runs", () => {
    assert.equal(extension().isActive, false, "the extension activated at start-up; activation must wait for the Board view or a command");
  });

  it("activates, and measures its own activation", async () => {
    const started = performance.now();
    const api = await activeApi();
    const fromHost = performance.now() - started;
    assert.equal(extension().isActive, true);
    assert.ok(Number.isFinite(api.activationMs) && api.activationMs >= 0, `activationMs is ${api.activationMs}`);
    recordFigure("activate() body", Number(api.activationMs.toFixed(2)), "ms");
    recordFigure("activate() as seen by the host (load + run)", Number(fromHost.toFixed(2)), "ms");
  });

  it("creates one LogOutputChannel named Ticket Runner", async () => {
    const { logChannel } = await activeApi();
    assert.equal(logChannel.name, "Ticket Runner");
    // Only a LogOutputChannel has a log level and these methods; a plain OutputChannel has neither.
    assert.equal(typeof logChannel.logLevel, "number");
    assert.equal(typeof logChannel.trace, "function");
  });
});
