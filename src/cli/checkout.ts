/** The top level of the git checkout around `cwd`, or null outside one. */
import { execFileSync } from "node:child_process";

export function checkoutTop(cwd: string): string | null {
  try {
    return execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, LC_ALL: "C" } }).trim() || null;
  } catch {
    return null;
  }
}
