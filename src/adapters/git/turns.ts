/** Work that must not overlap within one process, queued by key. */
const turns = new Map<string, Promise<unknown>>();

/** Runs `task` after every earlier task with the same key has settled. */
export function takeTurn<T>(key: string, task: () => Promise<T>): Promise<T> {
  const prev = turns.get(key) ?? Promise.resolve();
  const run = prev.then(task, task);
  const tail = run.catch(() => undefined);
  turns.set(key, tail);
  void tail.then(() => {
    if (turns.get(key) === tail) turns.delete(key);
  });
  return run;
}
