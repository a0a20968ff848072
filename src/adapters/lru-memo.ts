/**
 * A bounded memo, least recently used dropped first: what a process remembers of answers that are a
 * function of their key alone (the secret scan's findings by text, a clone's objects by id; ADR 0508).
 * A Map keeps insertion order, so a hit is moved to the end and the first key is the oldest.
 */
export class LruMemo<K, V> {
  private readonly entries = new Map<K, V>();
  /** How many lookups were answered (for the tests). */
  hits = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const known = this.entries.get(key);
    if (known === undefined) return undefined;
    this.hits += 1;
    this.entries.delete(key);
    this.entries.set(key, known);
    return known;
  }

  set(key: K, value: V): void {
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
