/**
 * The answer node-fetch.ts hands Octokit: the `Response` a `fetch` gives, for a body already read
 * whole (ADR 0490). Node's own `Headers` and `Response` are undici's: the first touch of either
 * global loads all of undici, ~50 ms of a process's CPU on this VM (a Run's start: ~0.5–0.8 CPU-s),
 * and each one made costs more than these. Octokit reads `status`, `url`, the headers (iterated,
 * and `get`) and the body once (`text`, or `arrayBuffer` for binary); the rest of `Response`'s
 * reading surface is here too, kept to what undici does with a whole body: header names
 * lower-cased, listed sorted, repeated ones joined with ", " (Set-Cookie listed one by one), a body
 * read once, a text decoded as UTF-8 with a leading byte-order mark dropped.
 */

/** The read-only side of `Headers`, over the raw header lines of an answer. */
export class AnswerHeaders {
  private readonly byName = new Map<string, string[]>();

  /** `raw` as node:http gives it: name, value, name, value, ... */
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const values = this.byName.get(name);
      if (values) values.push(raw[i + 1]!);
      else this.byName.set(name, [raw[i + 1]!]);
    }
  }

  get(name: string): string | null {
    return this.byName.get(name.toLowerCase())?.join(", ") ?? null;
  }

  has(name: string): boolean {
    return this.byName.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [...(this.byName.get("set-cookie") ?? [])];
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.byName.keys()].sort()) {
      if (name === "set-cookie") for (const value of this.byName.get(name)!) yield [name, value];
      else yield [name, this.get(name)!];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: AnswerHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** A `Response` whose body (null for none) was read whole before it was made. */
export class FetchAnswer {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = "default";
  private used = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: AnswerHeaders,
    private readonly content: Buffer | null,
    readonly url: string,
  ) {
    // As `Response` refuses them (fetch then fails the request).
    if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError(`the status ${status} is outside 200–599`);
    this.ok = status >= 200 && status <= 299;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /** The body as a stream, as `Response.body` is (a Blob's stream: node:buffer's, not undici's). */
  get body(): ReadableStream<Uint8Array> | null {
    return this.content === null ? null : (new Blob([this.content]).stream() as ReadableStream<Uint8Array>);
  }

  /** The body's bytes, once: a second read is fetch's "Body is unusable" TypeError. */
  private take(): Buffer {
    if (this.used) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    return this.content ?? Buffer.alloc(0);
  }

  async text(): Promise<string> {
    const bytes = this.take();
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return bytes.toString("utf8", start);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.arrayBuffer());
  }

  async blob(): Promise<Blob> {
    return new Blob([this.take()], { type: this.headers.get("content-type") ?? "" });
  }

  clone(): FetchAnswer {
    if (this.used) throw new TypeError("Response.clone: Body has already been consumed.");
    return new FetchAnswer(this.status, this.statusText, this.headers, this.content, this.url);
  }
}
