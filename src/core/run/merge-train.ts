/** A place in the merge order: `turn()` resolves once every earlier seat has left. */
export interface Seat {
  turn(): Promise<void>;
  leave(): void;
}

/**
 * The merge order of a Run's Landings (ADR 0181): seats are taken in the order Landings start, CI
 * is waited for side by side, and each merge waits for the seats before it to leave (merged, or out
 * of the Landing for a fix or an ending).
 */
export class MergeTrain {
  private last: Promise<void> = Promise.resolve();

  join(): Seat {
    const before = this.last;
    let leave!: () => void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    // A seat that leaves early (a CI failure) does not let the seats after it pass the ones before it.
    this.last = Promise.all([before, left]).then(() => undefined);
    return { turn: () => before, leave };
  }
}
