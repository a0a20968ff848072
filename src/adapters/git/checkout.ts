/** Where a command runs: the top level of the git checkout around it, and its origin remote. */
import { execFileSync } from "node:child_process";

export function checkoutTop(cwd: string): string | null {
  try {
    return execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, LC_ALL: "C" } }).trim() || null;
  } catch {
    return null;
  }
}

/** The URL of the checkout's `origin` remote, or null when it has none. */
export function originUrl(checkout: string): string | null {
  try {
    return execFileSync("git", ["remote", "get-url", "origin"], { cwd: checkout, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, LC_ALL: "C" } }).trim() || null;
  } catch {
    return null;
  }
}
