// Figures measured inside the extension host (e.g. activation time), reported by the launcher.
// Each test file is its own bundle, so the store lives on globalThis, not in this module.
type Figures = Record<string, { value: number; unit: string }>;
const KEY = "__ticketRunnerTestFigures";

function store(): Figures {
  const g = globalThis as unknown as Record<string, Figures | undefined>;
  g[KEY] ??= {};
  return g[KEY];
}

export function recordFigure(name: string, value: number, unit: string): void {
  store()[name] = { value, unit };
}

export function figures(): Readonly<Figures> {
  return store();
}
