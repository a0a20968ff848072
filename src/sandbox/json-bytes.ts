/**
 * `JSON.stringify(value)` as UTF-8 bytes, written piece by piece into one buffer kept across
 * calls (ADR 0507). V8 builds a long JSON text as a rope of parts; turning that rope into UTF-8
 * makes a flat copy of it first, and for the sandbox's ~100 KB state with a few characters beyond
 * Latin-1 that copy and the encoding were ~1.7 ms of a write, three times the serialising itself
 * (bench:hosts at K = 4 writes the state ~19 times a ticket). Each piece here is the
 * `JSON.stringify` of a value `depth` levels down (an issue, for the state), short enough to come
 * back flat, and is encoded straight into the buffer.
 *
 * The bytes are JSON.stringify's: only plain objects and arrays are walked here, by its rules (own
 * enumerable string keys in `Object.keys` order; a member it gives no text for left out of an
 * object and `null` in an array); anything else (a `toJSON`, a boxed value, a class's object), and
 * everything below `depth`, is given to JSON.stringify itself. test/unit/sandbox/json-bytes.test.ts compares the two.
 */
export class JsonBytes {
  private buffer = Buffer.alloc(0);
  private at = 0;

  /** The bytes of JSON.stringify(value) (a value it gives a text for): a view of the kept buffer, good until the next call. */
  encode(value: unknown, depth: number): Buffer {
    this.at = 0;
    if (walked(value, depth)) this.walk(value, depth);
    else this.put(JSON.stringify(value) ?? "null");
    return this.buffer.subarray(0, this.at);
  }

  private walk(value: object, depth: number): void {
    if (Array.isArray(value)) {
      this.put("[");
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.put(",");
        const item: unknown = value[i];
        if (walked(item, depth - 1)) this.walk(item, depth - 1);
        else this.put(JSON.stringify(item) ?? "null");
      }
      this.put("]");
      return;
    }
    this.put("{");
    let first = true;
    for (const key of Object.keys(value)) {
      const item: unknown = (value as Record<string, unknown>)[key];
      const text = walked(item, depth - 1) ? null : JSON.stringify(item);
      // Left out of an object: what JSON.stringify gives no text for (undefined, a function, a symbol).
      if (text === undefined) continue;
      this.put(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      if (text === null) this.walk(item as object, depth - 1);
      else this.put(text);
    }
    this.put("}");
  }

  /** Encodes `text` at the end; the buffer always has room for three bytes a UTF-16 unit (the most UTF-8 takes for one). */
  private put(text: string): void {
    const most = text.length * 3;
    if (this.buffer.length - this.at < most) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + most, 4096));
      this.buffer.copy(grown, 0, 0, this.at);
      this.buffer = grown;
    }
    this.at += this.buffer.write(text, this.at, "utf8");
  }
}

/** A plain object or an array above `depth`: walked here; anything else (a class's object, a boxed value, one with toJSON) is JSON.stringify's. */
function walked(value: unknown, depth: number): value is object {
  if (depth <= 0 || typeof value !== "object" || value === null || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
