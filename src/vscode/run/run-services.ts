import type { TranscriptChannels } from "./transcript-channels";
import type { WindowRun } from "./window-run";
import type { WorktreeFolders } from "./worktree-folders";

/** The Run side of the extension, built once by activate() and handed to the commands. */
export interface RunServices {
  readonly windowRun: WindowRun;
  readonly transcripts: TranscriptChannels;
  readonly folders: WorktreeFolders;
  /** The demo agent ships inside the extension: `<extension>/dist`. */
  readonly distDir: string;
}
