// Lint rules that keep the layers apart (docs/architecture.md).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const forbiddenInCore = [
  { name: "vscode", message: "src/core must not touch VS Code; put it in src/vscode and pass it in through a port." },
  { name: "child_process", message: "src/core must not spawn processes; use the AgentRunner or Workspace port." },
  { name: "node:child_process", message: "src/core must not spawn processes; use the AgentRunner or Workspace port." },
  { name: "simple-git", message: "src/core must not run git; use the Workspace port." },
];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".vscode-test/**", "test-results/**", ".cache/**", "out/**", "test/fixtures/**"] },
  js.configs.recommended,
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } } },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", URL: "readonly", AbortController: "readonly", AbortSignal: "readonly", fetch: "readonly", TextDecoder: "readonly", TextEncoder: "readonly", __dirname: "readonly", require: "readonly", module: "writable", setImmediate: "readonly", queueMicrotask: "readonly", structuredClone: "readonly" } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      "no-restricted-syntax": ["error", { selector: "ExportDefaultDeclaration", message: "Use named exports." }],
    },
  },
  {
    files: ["src/core/**/*.ts", "src/ports/**/*.ts", "test/fixtures/lint/core/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: forbiddenInCore,
        patterns: [{ group: ["@octokit/*", "@octokit/**"], message: "src/core must not call GitHub directly; use the Tracker port." }],
      }],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-expressions": "off" },
  },
);
