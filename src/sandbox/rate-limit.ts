/**
 * GitHub's primary rate limit: a budget per caller per resource per hour, reported in
 * x-ratelimit-* headers. A 304 Not Modified is free, as on GitHub.
 */
import { HttpError } from "./http";

export type Resource = "core" | "graphql";

interface Window {
  used: number;
  resetAt: number;
}

export interface RateInfo {
  limit: number;
  used: number;
  remaining: number;
  reset: number;
  resource: Resource;
}

export class RateLimiter {
  private windows = new Map<string, Window>();
  private readonly exhausted = new Set<string>();
  userLimit = 5000;
  readonly anonymousLimit = 60;

  private window(key: string, resource: Resource): Window {
    const id = `${resource}:${key}`;
    const now = Date.now();
    let w = this.windows.get(id);
    if (!w || w.resetAt <= now) {
      w = { used: 0, resetAt: now + 3600_000 };
      this.windows.set(id, w);
    }
    return w;
  }

  info(key: string, anonymous: boolean, resource: Resource): RateInfo {
    const w = this.window(key, resource);
    const limit = anonymous ? this.anonymousLimit : this.userLimit;
    return { limit, used: w.used, remaining: Math.max(0, limit - w.used), reset: Math.floor(w.resetAt / 1000), resource };
  }

  /** Refuses when the budget is spent; otherwise returns the info as it will be after this request. */
  check(key: string, anonymous: boolean, resource: Resource): RateInfo {
    const info = this.info(key, anonymous, resource);
    if (info.remaining <= 0) {
      throw new HttpError(403, `API rate limit exceeded for ${anonymous ? key : `user ${key}`}.`, {}, headersOf(info));
    }
    return info;
  }

  /** Spends `key`'s whole budget for `resource` until `resetAt` (ms since the epoch): the spentBudget fault. */
  exhaust(key: string, resource: Resource, resetAt: number): void {
    this.windows.set(`${resource}:${key}`, { used: this.userLimit, resetAt });
    this.exhausted.add(`${resource}:${key}`);
  }

  /** Gives back every budget `exhaust` spent (faults set again without spentBudget). */
  restore(): void {
    for (const id of this.exhausted) this.windows.delete(id);
    this.exhausted.clear();
  }

  spend(key: string, resource: Resource, cost = 1): void {
    this.window(key, resource).used += cost;
  }

  reset(): void {
    this.windows.clear();
  }
}

export function headersOf(info: RateInfo): Record<string, string> {
  return {
    "x-ratelimit-limit": String(info.limit),
    "x-ratelimit-remaining": String(info.remaining),
    "x-ratelimit-reset": String(info.reset),
    "x-ratelimit-used": String(info.used),
    "x-ratelimit-resource": info.resource,
  };
}
