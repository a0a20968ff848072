/** Sandbox CI (filled in below the first milestone). */
import type { App } from "./app";

export function attachCi(app: App): void {
  app.onHeadChanged = () => undefined;
}
