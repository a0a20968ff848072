/**
 * What a repository's configuration tells a push taken in this process (ADR 0482), read from one
 * `git config --list` kept until the config changes (config-state.ts): the hidden refs
 * (receive.hideRefs, transfer.hideRefs: a push to one is refused), and whether the config says
 * nothing else receive-pack would act on. Any `receive.*`, `transfer.*` or `fsck.*` setting but
 * the hidden refs, a repository format extension, a shared repository (its files' modes and
 * denyNonFastForwards' default), reflogs kept for every ref, a lock timeout, any fsync setting
 * (the loose objects written in process are not fsynced, as git's default: ADR 0491), or a
 * repository that is not bare at format 0: receive-pack takes the push, as before.
 */
import { ConfigListings } from "./config-state";

export interface ReceiveSetup {
  /** receive.hideRefs and transfer.hideRefs, in config order, trailing slashes off. */
  hidden: string[];
}

const HIDDEN = new Set(["receive.hiderefs", "transfer.hiderefs"]);
const ACTED_ON =
  /^(receive|transfer|fsck|extensions)\.|^core\.(sharedrepository|logallrefupdates|filesreflocktimeout|packedrefstimeout|precomposeunicode|ignorecase|fsync|fsyncobjectfiles|fsyncmethod)$/;

/** From `git config --list -z` (`key\nvalue\0` each): the setup, or null when the config asks for more than is modelled. */
export function receiveSetupOf(listing: string): ReceiveSetup | null {
  const hidden: string[] = [];
  for (const entry of listing.split("\0")) {
    if (entry === "") continue;
    const nl = entry.indexOf("\n");
    // A key with no value (`[receive] hideRefs`): receive-pack refuses it; not modelled.
    if (nl < 0) return null;
    const key = entry.slice(0, nl);
    const value = entry.slice(nl + 1);
    if (HIDDEN.has(key)) hidden.push(value.replace(/\/+$/, ""));
    else if (ACTED_ON.test(key)) return null;
    else if (key === "core.bare" && value !== "true") return null;
    else if (key === "core.repositoryformatversion" && value !== "0") return null;
  }
  return { hidden };
}

export class ReceiveSetups {
  /** The listing is shared with the fetch answered in process (ADR 0487): one `git config` per config state for both. */
  constructor(private readonly listings = new ConfigListings()) {}

  /** The repository's setup; null: receive-pack takes its pushes. */
  async setup(gitDir: string): Promise<ReceiveSetup | null> {
    const listing = await this.listings.listing(gitDir);
    return listing === null ? null : receiveSetupOf(listing);
  }

  /** Forgets a repository's setup (made anew), or every one (the sandbox reset). */
  forget(gitDir?: string): void {
    this.listings.forget(gitDir);
  }
}
