// Lint rules that keep the layers apart (docs/architecture.md).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The fences between the rooms (docs/architecture.md lists them; test/unit/lint/fences.test.ts
// proves each one live). A layer's list is built whole: a later config object's
// no-restricted-imports would replace an earlier one's, not add to it.
const fsModules = ["fs", "node:fs", "fs/promises", "node:fs/promises"];
const processModules = ["child_process", "node:child_process"];
const noVscode = { name: "vscode", message: "VS Code lives in src/vscode only; pass what you need in through a port." };
// Relative imports only: `vscode` the module is a path rule of its own.
const room = (name, message) => ({ regex: `^(\\.{1,2}/)+(.*/)?${name}(/|$)`, message });
const fromSandbox = { regex: "(^|/)sandbox/", message: "Product code must not use the sandbox (src/sandbox is the local GitHub for tests and the demo)." };
const octokit = { group: ["@octokit/*", "@octokit/**"], message: "src/core must not call GitHub directly; use the Tracker port." };

const coreFence = {
  paths: [
    { ...noVscode, message: "src/core must not touch VS Code; put it in src/vscode and pass it in through a port." },
    ...processModules.map((name) => ({ name, message: "src/core must not spawn processes; use the AgentRunner or Workspace port." })),
    { name: "simple-git", message: "src/core must not run git; use the Workspace port." },
    ...fsModules.map((name) => ({ name, message: "src/core must not touch the file system; use the Workspace or RunRoot port (adapters do the I/O)." })),
  ],
  patterns: [
    octokit,
    ...["adapters", "app", "cli", "vscode", "demo"].map((r) =>
      room(r, `src/core must not import src/${r}: the core is reached through ports, never the other way round.`),
    ),
    fromSandbox,
  ],
};

const adaptersFence = {
  paths: [{ ...noVscode, message: "src/adapters must not touch VS Code: the extension (src/vscode) builds adapters and hands them what they need." }],
  patterns: [
    ...["app", "cli", "vscode", "demo"].map((r) => room(r, `src/adapters must not import src/${r}: front doors build adapters, adapters know no front door.`)),
    fromSandbox,
  ],
};

const appFence = {
  paths: [{ ...noVscode, message: "src/app is shared by both front doors and must not touch VS Code." }],
  patterns: [...["cli", "vscode", "demo"].map((r) => room(r, `src/app must not import src/${r}: it is what both front doors share.`)), fromSandbox],
};

const cliFence = {
  paths: [{ ...noVscode, message: "src/cli must not touch VS Code." }],
  patterns: [room("vscode", "src/cli must not import src/vscode: what both front doors need goes in src/app."), fromSandbox],
};

const vscodeFence = {
  patterns: [room("cli", "src/vscode must not import src/cli: what both front doors need goes in src/app."), fromSandbox],
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".vscode-test/**", "test-results/**", ".cache/**", "out/**", "test/fixtures/**"] },
  js.configs.recommended,
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } } },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        URL: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        fetch: "readonly",
        TextDecoder: "readonly",
        TextEncoder: "readonly",
        __dirname: "readonly",
        require: "readonly",
        module: "writable",
        setImmediate: "readonly",
        queueMicrotask: "readonly",
        structuredClone: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      "no-restricted-syntax": ["error", { selector: "ExportDefaultDeclaration", message: "Use named exports." }],
    },
  },
  { files: ["src/core/**/*.ts", "src/ports/**/*.ts"], rules: { "no-restricted-imports": ["error", coreFence] } },
  { files: ["src/adapters/**/*.ts"], rules: { "no-restricted-imports": ["error", adaptersFence] } },
  { files: ["src/app/**/*.ts"], rules: { "no-restricted-imports": ["error", appFence] } },
  // The `sandbox` and `demo` commands are the sandbox's own front doors.
  { files: ["src/cli/**/*.ts"], ignores: ["src/cli/commands/sandbox.ts"], rules: { "no-restricted-imports": ["error", cliFence] } },
  { files: ["src/vscode/**/*.ts"], rules: { "no-restricted-imports": ["error", vscodeFence] } },
  {
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-expressions": "off" },
  },
);
