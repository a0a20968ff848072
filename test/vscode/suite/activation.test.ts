import * as assert from "node:assert/strict";
import { activeApi, extension } from "../support/extension";
import * as vscode from "vscode";
import { recordFigure } from "../support/figures";

/** An extension that loads nothing (test/vscode/activation-floor/, ADR 0300): the host's own share of an activation. */
const FLOOR_ID = "ticket-runner-test.activation-floor";

// This file runs first (files run in name order): nothing has opened the view or run a command yet.
describe("activation", () => {
  it("is lazy: not active before its view opens or a command runs", () => {
    assert.equal(extension().isActive, false, "the extension activated at start-up; activation must wait for the Board view or a command");
  });

  it("the host's floor: its wait for a stub extension that loads nothing, in this host", async () => {
    const floor = vscode.extensions.getExtension(FLOOR_ID);
    assert.ok(floor, `${FLOOR_ID} is not installed in this host (scripts/vscode/in-host.ts installs it)`);
    const started = performance.now();
    await floor.activate();
    recordFigure("host's wait for a stub extension (floor)", Number((performance.now() - started).toFixed(2)), "ms");
  });

  it("activates, and measures its own activation: the bundle's load from the first line of dist/extension.js, and activate()", async () => {
    const started = performance.now();
    const api = await activeApi();
    const fromHost = performance.now() - started;
    assert.equal(extension().isActive, true);
    assert.ok(api.activateBodyMs >= 0 && api.bundleLoadMs >= 0, `load ${api.bundleLoadMs}, body ${api.activateBodyMs}`);
    assert.ok(Math.abs(api.activationMs - (api.bundleLoadMs + api.activateBodyMs)) < 0.01, `activationMs ${api.activationMs} is the load plus the body`);
    assert.ok(api.activationMs <= fromHost, `the bundle's load and activate() (${api.activationMs} ms) happen inside the host's wait (${fromHost} ms)`);
    recordFigure("activation, bundle load included", Number(api.activationMs.toFixed(2)), "ms");
    recordFigure("activation CPU time, bundle load included", Number(api.activationCpuMs.toFixed(2)), "ms");
    recordFigure("bundle load", Number(api.bundleLoadMs.toFixed(2)), "ms");
    recordFigure("activate() body", Number(api.activateBodyMs.toFixed(2)), "ms");
    recordFigure("host's wait for our activation", Number(fromHost.toFixed(2)), "ms");
  });

  it("creates one LogOutputChannel named Ticket Runner", async () => {
    const { logChannel } = await activeApi();
    assert.equal(logChannel.name, "Ticket Runner");
    // Only a LogOutputChannel has a log level and these methods; a plain OutputChannel has neither.
    assert.equal(typeof logChannel.logLevel, "number");
    assert.equal(typeof logChannel.trace, "function");
  });
});
