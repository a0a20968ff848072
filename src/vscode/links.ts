import * as vscode from "vscode";

export type Opener = (uri: vscode.Uri) => Thenable<boolean>;

/**
 * Opens web links (a claiming comment, a hand-off comment, an issue). Tests replace the opener
 * (setOpener) to capture the URL instead of patching `vscode.env` globally.
 */
export class Links {
  private opener: Opener = (uri) => vscode.env.openExternal(uri);

  setOpener(opener: Opener): () => void {
    const previous = this.opener;
    this.opener = opener;
    return () => {
      this.opener = previous;
    };
  }

  async open(url: string): Promise<boolean> {
    if (!/^https?:\/\//.test(url)) return false;
    return this.opener(vscode.Uri.parse(url, true));
  }
}
