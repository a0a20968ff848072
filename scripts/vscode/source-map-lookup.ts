// A minified position -> its original source, function name and line, from a source map (v3).
// For the workbench profile report only; no dependency for one lookup table.
import { readFileSync } from "node:fs";

interface SourceMap {
  sources: string[];
  names: string[];
  mappings: string;
}

// Per generated line: [column, source, original line, name | -1], columns ascending.
type Lines = [number, number, number, number][][];

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const cache = new Map<string, { map: SourceMap; lines: Lines }>();

function decode(mappings: string): Lines {
  const lines: Lines = [];
  let source = 0;
  let origLine = 0;
  let name = 0;
  for (const line of mappings.split(";")) {
    const segs: [number, number, number, number][] = [];
    let col = 0;
    for (const seg of line.split(",")) {
      if (!seg) continue;
      const v: number[] = [];
      let shift = 0;
      let value = 0;
      for (const ch of seg) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          v.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      col += v[0] ?? 0;
      if (v.length < 4) continue;
      source += v[1] ?? 0;
      origLine += v[2] ?? 0;
      if (v.length > 4) name += v[4] ?? 0;
      segs.push([col, source, origLine, v.length > 4 ? name : -1]);
    }
    lines.push(segs);
  }
  return lines;
}

/** `src/vs/…/file.ts:line (name)` for a 1-based line and column of the minified file, or null. */
export function resolveMinified(mapFile: string, line: number, column: number): string | null {
  let entry = cache.get(mapFile);
  if (!entry) {
    const map = JSON.parse(readFileSync(mapFile, "utf8")) as SourceMap;
    entry = { map, lines: decode(map.mappings) };
    cache.set(mapFile, entry);
  }
  const segs = entry.lines[line - 1];
  if (!segs) return null;
  let found: [number, number, number, number] | undefined;
  for (const s of segs) {
    if (s[0] > column - 1) break;
    found = s;
  }
  if (!found) return null;
  const src = (entry.map.sources[found[1]] ?? "?").replace(/^.*\/src\//, "");
  const fn = found[3] >= 0 ? ` (${entry.map.names[found[3]]})` : "";
  return `${src}:${found[2] + 1}${fn}`;
}
