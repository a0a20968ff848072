/**
 * The frames between the Run and the Python spawner (ADR 0480): a 4-byte big-endian length, a JSON
 * header of that many bytes whose `sizes` lists the lengths of the raw payloads that follow it.
 * Output of any bytes travels as it is: never split on lines, never re-encoded.
 */

/** Why the spawner's output could not be read as frames; the caller ends that spawner. */
export class FrameError extends Error {
  constructor(readonly reason: "header-not-json" | "header-without-sizes") {
    super(`a frame from the Python spawner could not be read (${reason})`);
    this.name = "FrameError";
  }
}

export interface Frame {
  header: Record<string, unknown>;
  payloads: Buffer[];
}

/** One frame: `header` gets `sizes` from `payloads`. */
export function encodeFrame(header: Record<string, unknown>, payloads: readonly Uint8Array[]): Buffer {
  const head = Buffer.from(JSON.stringify({ ...header, sizes: payloads.map((p) => p.byteLength) }), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length, 0);
  return Buffer.concat([length, head, ...payloads]);
}

/** Reads frames from chunks as they come; a frame's payloads are copied out only once it is whole. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Bytes needed before the next step can be taken: the length, then the header, then the whole frame. */
  private need = 4;
  private header: Record<string, unknown> | null = null;
  private sizes: number[] = [];

  /** The frames made whole by this chunk; throws a FrameError when the bytes are not frames. */
  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.length += chunk.length;
    const frames: Frame[] = [];
    while (this.length >= this.need) {
      const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
      this.chunks = [buf];
      if (this.header === null) {
        const headLength = buf.readUInt32BE(0);
        if (buf.length < 4 + headLength) {
          this.need = 4 + headLength;
          continue;
        }
        this.header = parseHeader(buf.subarray(4, 4 + headLength));
        this.sizes = this.header.sizes as number[];
        this.need = this.sizes.reduce((a, b) => a + b, 4 + headLength);
        continue;
      }
      let at = this.need - this.sizes.reduce((a, b) => a + b, 0);
      const payloads = this.sizes.map((size) => {
        const p = buf.subarray(at, at + size);
        at += size;
        return p;
      });
      frames.push({ header: this.header, payloads });
      const rest = buf.subarray(this.need);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.length = rest.length;
      this.header = null;
      this.need = 4;
    }
    return frames;
  }
}

function parseHeader(bytes: Buffer): Record<string, unknown> {
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new FrameError("header-not-json");
  }
  const sizes = (header as { sizes?: unknown } | null)?.sizes;
  if (typeof header !== "object" || header === null || !Array.isArray(sizes) || !sizes.every((n) => Number.isInteger(n) && n >= 0)) {
    throw new FrameError("header-without-sizes");
  }
  return header as Record<string, unknown>;
}
