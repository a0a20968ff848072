import * as vscode from "vscode";

/** A single-choice QuickPick: what VS Code's showQuickPick takes without canPickMany. */
export type PickOptions = vscode.QuickPickOptions & { canPickMany?: false };

/**
 * The one seam to VS Code's QuickPick. Tests replace it (Picker.setPickApi) to read the items a
 * person would see and choose one, instead of patching `vscode.window` globally.
 */
export interface PickApi {
  pick<T extends vscode.QuickPickItem>(items: readonly T[], options: PickOptions): Thenable<T | undefined>;
}

const vscodePicks: PickApi = {
  pick: (items, options) => vscode.window.showQuickPick(items, options),
};

export class Picker {
  private api: PickApi = vscodePicks;

  /** Replaces the pick API (tests); returns a function that puts the previous one back. */
  setPickApi(api: PickApi): () => void {
    const previous = this.api;
    this.api = api;
    return () => {
      this.api = previous;
    };
  }

  pick<T extends vscode.QuickPickItem>(items: readonly T[], options: PickOptions): Thenable<T | undefined> {
    return this.api.pick(items, options);
  }
}
