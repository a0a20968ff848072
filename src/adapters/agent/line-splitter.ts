/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line.
 *
 * Why bytes, not strings: a chunk boundary can fall inside a multi-byte UTF-8 character, and a
 * line can be invalid UTF-8. Each complete line is decoded on its own with a fatal decoder, so
 * one bad line is reported as bad instead of silently turned into U+FFFD.
 * Why the cap: an agent that prints a 1 GB line must fail its Stage, not exhaust our memory.
 */

export type SplitLine =
  | { kind: "line"; text: string; lineNo: number; bytes: number }
  | { kind: "invalid-utf8"; lossy: string; lineNo: number; bytes: number }
  | { kind: "oversize"; lineNo: number; bytes: number };

export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

export class LineSplitter {
  private chunks: Buffer[] = [];
  private pending = 0;
  /** Bytes of the current line seen so far, including any dropped because it went over the cap. */
  private seen = 0;
  private overflowing = false;
  private lineNo = 0;
  private readonly strict = new TextDecoder("utf-8", { fatal: true });
  private readonly lossy = new TextDecoder("utf-8");

  constructor(
    private readonly emit: (line: SplitLine) => void,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  /** Flushes a last line that had no newline (a truncated stream still shows what it printed). */
  end(): void {
    if (this.seen > 0) this.finishLine();
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    this.seen += part.length;
    if (this.overflowing) return;
    if (this.pending + part.length > this.maxLineBytes) {
      this.overflowing = true;
      this.chunks = [];
      this.pending = 0;
      return;
    }
    // Copy: the caller's chunk buffer may be reused by the stream.
    this.chunks.push(Buffer.from(part));
    this.pending += part.length;
  }

  private finishLine(): void {
    this.lineNo += 1;
    const bytes = this.seen;
    if (this.overflowing) {
      this.emit({ kind: "oversize", lineNo: this.lineNo, bytes });
    } else {
      const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.pending);
      // A trailing CR (CRLF output) is not part of the event.
      const body = buf.length > 0 && buf[buf.length - 1] === 0x0d ? buf.subarray(0, buf.length - 1) : buf;
      if (body.length > 0) {
        try {
          this.emit({ kind: "line", text: this.strict.decode(body), lineNo: this.lineNo, bytes });
        } catch {
          this.emit({ kind: "invalid-utf8", lossy: this.lossy.decode(body), lineNo: this.lineNo, bytes });
        }
      }
    }
    this.chunks = [];
    this.pending = 0;
    this.seen = 0;
    this.overflowing = false;
  }
}
