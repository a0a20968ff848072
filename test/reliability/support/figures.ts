/**
 * Figures for docs/reliability.md. Every reliability test records what it tried (inputs, fuzz
 * cases, trials, kills, faults) and what it lost (must be 0) under a guarantee id. At the end of a
 * mocha run, or when chaos-main calls flushFigures(), they are printed as one table and merged into
 * test-results/reliability/figures.json (ignored by git), from which the doc's table is filled in.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface Figure {
  /** What the row proves, in a few words. */
  what: string;
  /** The test that proves it (file, and `describe > it` where useful). */
  test: string;
  inputs?: number;
  cases?: number;
  trials?: number;
  kills?: number;
  faults?: number;
  losses: number;
  /** Anything else worth printing: wall time, requests, ... */
  notes?: string;
}

const figures = new Map<string, Figure>();

export const FIGURES_FILE = process.env.TR_RELIABILITY_FIGURES ?? resolve(__dirname, "../../../test-results/reliability/figures.json");

/** Adds to the row `id` (counts add up across calls in one process). */
export function record(id: string, f: Figure): void {
  const prev = figures.get(id);
  if (!prev) {
    figures.set(id, { ...f });
    return;
  }
  const add = (a?: number, b?: number): number | undefined => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  figures.set(id, {
    what: f.what,
    test: f.test,
    inputs: add(prev.inputs, f.inputs),
    cases: add(prev.cases, f.cases),
    trials: add(prev.trials, f.trials),
    kills: add(prev.kills, f.kills),
    faults: add(prev.faults, f.faults),
    losses: prev.losses + f.losses,
    notes: f.notes ?? prev.notes,
  });
}

function cell(n: number | undefined): string {
  return n === undefined ? "" : String(n);
}

export function figureTable(rows: Map<string, Figure> = figures): string {
  const lines = ["| id | inputs | cases | trials | kills | faults | losses | notes |", "|---|---|---|---|---|---|---|---|"];
  for (const [id, f] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`| ${id} | ${cell(f.inputs)} | ${cell(f.cases)} | ${cell(f.trials)} | ${cell(f.kills)} | ${cell(f.faults)} | ${f.losses} | ${f.notes ?? ""} |`);
  }
  return lines.join("\n");
}

/** A lock older than this was left by a killed process: taken over. */
const STALE_LOCK_MS = 30_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `fn` holding FIGURES_FILE's lock (a directory beside it: mkdir is atomic). mocha's parallel
 * workers flush at the end of each file (ADR 0320): without the lock two read the same file and the
 * later write drops the other's rows.
 */
function withLock(fn: () => void): void {
  const lock = `${FIGURES_FILE}.lock`;
  mkdirSync(dirname(FIGURES_FILE), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmdirSync(lock);
      } catch {
        // Released meanwhile.
      }
      sleepSync(10);
    }
  }
  try {
    fn();
  } finally {
    rmdirSync(lock);
  }
}

/** Prints this process's figures and merges them into FIGURES_FILE (a row is replaced by its latest run). */
export function flushFigures(print: (text: string) => void = (t) => process.stdout.write(`${t}\n`)): void {
  if (figures.size === 0) return;
  print(`\nReliability figures (this run):\n${figureTable()}\n`);
  const at = new Date().toISOString();
  withLock(() => {
    let all: Record<string, Figure & { at: string }> = {};
    try {
      if (existsSync(FIGURES_FILE)) all = JSON.parse(readFileSync(FIGURES_FILE, "utf8")) as typeof all;
    } catch {
      all = {};
    }
    for (const [id, f] of figures) all[id] = { ...f, at };
    // Renamed into place whole, so a reader never sees half a file.
    const tmp = `${FIGURES_FILE}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`);
    renameSync(tmp, FIGURES_FILE);
  });
  print(`(merged into ${join(FIGURES_FILE)})`);
  figures.clear();
}

// Under mocha, a root-level hook prints the figures once all reliability suites are done.
if (typeof after === "function") after(() => flushFigures());
