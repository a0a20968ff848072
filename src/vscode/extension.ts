import type * as vscode from "vscode";

export function activate(_context: vscode.ExtensionContext): void {
  // Wired in src/vscode/activate.ts (foundation work in progress).
}

export function deactivate(): void {}
