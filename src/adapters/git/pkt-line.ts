/**
 * git's pkt-line framing (gitprotocol-common(5)): four hex digits giving the line's length,
 * themselves included, then the data; "0000" is a flush. Side-band (gitprotocol-pack(5)): each
 * pkt-line's first byte names its band: 1 data, 2 progress, 3 a fatal error.
 */

/** One pkt-line of `data` (text or bytes). */
export function pktLine(data: string | Buffer): Buffer {
  const body = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  if (body.length + 4 > 65520) throw new RangeError(`a pkt-line holds at most 65516 bytes, got ${body.length}`);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, "0"), "latin1"), body]);
}

export const FLUSH = Buffer.from("0000", "latin1");

/** A pkt-line read: its data, or null for a flush (or delim / response-end, which v0 never sends). */
export type Pkt = Buffer | null;

/**
 * The pkt-lines of `data`, in order, up to its end. Throws `MalformedPkt` on a length that is not
 * hex or runs past the data: the answer was cut short or is not git's.
 */
export function readPktLines(data: Buffer): Pkt[] {
  const out: Pkt[] = [];
  let at = 0;
  while (at < data.length) {
    if (at + 4 > data.length) throw new MalformedPkt("a pkt-line length cut short");
    const hex = data.subarray(at, at + 4).toString("latin1");
    if (!/^[0-9a-f]{4}$/i.test(hex)) throw new MalformedPkt(`not a pkt-line length: ${JSON.stringify(hex)}`);
    const len = Number.parseInt(hex, 16);
    if (len < 4) {
      out.push(null);
      at += 4;
      continue;
    }
    if (at + len > data.length) throw new MalformedPkt("a pkt-line cut short");
    out.push(data.subarray(at + 4, at + len));
    at += len;
  }
  return out;
}

/** A pkt-line's text without its trailing newline. */
export function pktText(line: Buffer): string {
  const text = line.toString("utf8");
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

export class MalformedPkt extends Error {
  override readonly name = "MalformedPkt";
}

/** What a side-band answer carried: band 1's bytes joined, band 2's progress text, band 3's error text. */
export interface SideBands {
  data: Buffer;
  progress: string;
  fatal: string;
}

/** Splits an answer multiplexed with side-band-64k (every pkt-line up to the final flush). */
export function demuxSideBand(lines: Pkt[]): SideBands {
  const data: Buffer[] = [];
  let progress = "";
  let fatal = "";
  for (const line of lines) {
    if (line === null || line.length === 0) continue;
    const band = line[0];
    const rest = line.subarray(1);
    if (band === 1) data.push(rest);
    else if (band === 2) progress += rest.toString("utf8");
    else if (band === 3) fatal += rest.toString("utf8");
    else throw new MalformedPkt(`side-band ${band} is not one of 1, 2, 3`);
  }
  return { data: Buffer.concat(data), progress, fatal };
}
