// Opt-in look at the workbench side of a round trip (docs/vscode.md, ADR 0360): with
// TICKET_RUNNER_WORKBENCH_PROFILE_DIR=<dir>, the in-host launcher keeps, for the whole run,
// - workbench.cpuprofile: the renderer's main thread, sampled (Chrome DevTools Protocol Profiler),
// - longtasks.json: every task of the renderer's main thread over 50 ms (PerformanceObserver),
// - frames.json: every WebSocket frame the page received or sent, with its size and wall time,
// beside the in-host test's own round-trip timeline (roundtrips.json, test/vscode/support/round-trip-log.ts).
// All times are wall-clock milliseconds (Date.now()), so the files line up with each other.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CDPSession, Page } from "playwright-core";

export const WORKBENCH_PROFILE_DIR = process.env["TICKET_RUNNER_WORKBENCH_PROFILE_DIR"];

interface Frame {
  readonly at: number;
  readonly dir: "in" | "out";
  readonly bytes: number;
  readonly socket: number;
}

export interface WorkbenchProbe {
  stop(): Promise<void>;
}

/** Call before the page opens the workbench (the long-task observer is an init script). */
export async function startWorkbenchProbe(page: Page, dir: string): Promise<WorkbenchProbe> {
  mkdirSync(dir, { recursive: true });
  // A string, not a function: it runs in the page, whose PerformanceObserver knows "longtask".
  await page.addInitScript({
    content: `(() => {
      const tasks = (globalThis.__trLongTasks = []);
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) tasks.push({ at: performance.timeOrigin + e.startTime, ms: e.duration });
      }).observe({ type: "longtask", buffered: true });
    })();`,
  });
  const frames: Frame[] = [];
  let sockets = 0;
  page.on("websocket", (ws) => {
    const socket = ++sockets;
    const size = (payload: string | Buffer): number => (typeof payload === "string" ? Buffer.byteLength(payload) : payload.length);
    ws.on("framereceived", (f) => frames.push({ at: Date.now(), dir: "in", bytes: size(f.payload), socket }));
    ws.on("framesent", (f) => frames.push({ at: Date.now(), dir: "out", bytes: size(f.payload), socket }));
  });
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 1000 });
  await cdp.send("Profiler.start");
  const startedAt = Date.now();
  return {
    stop: async () => {
      const { profile } = await cdp.send("Profiler.stop");
      writeFileSync(join(dir, "workbench.cpuprofile"), JSON.stringify({ ...profile, wallStartMs: startedAt }));
      const tasks = await page.evaluate(() => (globalThis as unknown as Record<string, unknown>)["__trLongTasks"]).catch(() => []);
      writeFileSync(join(dir, "longtasks.json"), JSON.stringify(tasks));
      writeFileSync(join(dir, "frames.json"), JSON.stringify(frames));
    },
  };
}
