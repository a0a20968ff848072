/**
 * Acceptance criteria are the unticked `- [ ]` items of an issue body. Only items outside fenced
 * code blocks count, so a demo block or a quoted checklist is not mistaken for criteria.
 */
export interface Criterion {
  /** Index among the unticked items, in body order. */
  index: number;
  text: string;
  /** Line number in the body (0-based). */
  line: number;
}

const ITEM = /^(\s*[-*]\s+)\[ \](\s+)(.*\S)\s*$/;
const FENCE = /^\s*(```|~~~)/;

export function uncheckedCriteria(body: string): Criterion[] {
  const out: Criterion[] = [];
  let inFence = false;
  const lines = body.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (FENCE.test(line)) {
      inFence = !inFence;
      return;
    }
    if (inFence) return;
    const m = ITEM.exec(line);
    if (m?.[3]) out.push({ index: out.length, text: m[3], line: i });
  });
  return out;
}

/** Ticks the criteria whose line numbers are given; every other byte of the body is kept. */
export function tickCriteria(body: string, lineNumbers: number[]): string {
  const wanted = new Set(lineNumbers);
  const newline = body.includes("\r\n") ? "\r\n" : "\n";
  return body
    .split(/\r?\n/)
    .map((line, i) => (wanted.has(i) ? line.replace(/^(\s*[-*]\s+)\[ \]/, "$1[x]") : line))
    .join(newline);
}
