/**
 * docs/refusals.md's list of every refusal's exact text, generated from the code: each
 * `new Refusal(reason, message, ...)` under src/, its message written out with each value it
 * fills in shown as `<the expression>` (ADR 0173). test/unit/refusals-doc.test.ts fails when the
 * doc and the code disagree; `npm run docs:refusals` rewrites the list.
 *
 *   npm run docs:refusals
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(__dirname, "..");
export const REFUSALS_DOC = join(ROOT, "docs", "refusals.md");
const START = "<!-- refusals:generated:start (npm run docs:refusals) -->";
const END = "<!-- refusals:generated:end -->";

export interface FoundRefusal {
  reason: string;
  text: string;
  file: string;
  where: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

function hole(node: ts.Node): string {
  return `<${node.getText().replace(/\s+/g, " ")}>`;
}

/** The message as written, each computed part shown as `<expression>`. */
function render(node: ts.Expression): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return render(node.expression);
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => hole(s.expression) + s.literal.text).join("");
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return render(node.left) + render(node.right);
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    node.expression.name.text === "join" &&
    ts.isArrayLiteralExpression(node.expression.expression)
  ) {
    const sep = node.arguments[0] && ts.isStringLiteral(node.arguments[0]) ? node.arguments[0].text : ",";
    return node.expression.expression.elements.map((e) => (ts.isSpreadElement(e) ? hole(e) : render(e))).join(sep);
  }
  return hole(node);
}

function enclosingName(node: ts.Node): string {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) return n.name.getText();
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) return n.name.text;
    if (ts.isPropertyAssignment(n) && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name))) return n.name.text;
  }
  return "(top level)";
}

export function findRefusals(srcDir = join(ROOT, "src")): FoundRefusal[] {
  const out: FoundRefusal[] = [];
  for (const path of sourceFiles(srcDir).sort()) {
    const text = readFileSync(path, "utf8");
    if (!text.includes("new Refusal(")) continue;
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "Refusal" && node.arguments && node.arguments.length >= 2) {
        const [reason, message] = node.arguments;
        out.push({
          reason: reason && ts.isStringLiteral(reason) ? reason.text : hole(reason!),
          text: render(message!),
          file: relative(ROOT, path),
          where: enclosingName(node),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return out;
}

/** The generated part of docs/refusals.md: every refusal text once, grouped by reason. */
export function renderRefusalList(found: FoundRefusal[] = findRefusals()): string {
  const byReason = new Map<string, Map<string, FoundRefusal[]>>();
  for (const r of found) {
    const texts = byReason.get(r.reason) ?? new Map<string, FoundRefusal[]>();
    texts.set(r.text, [...(texts.get(r.text) ?? []), r]);
    byReason.set(r.reason, texts);
  }
  const lines = [
    START,
    "",
    `Every refusal the code can give (${found.length} places in src/), its text exactly as written: each value it fills in is shown as \`<the expression>\`. Generated from the code; \`npm run docs:refusals\` rewrites it and test/unit/refusals-doc.test.ts fails when it is out of date.`,
  ];
  for (const reason of [...byReason.keys()].sort()) {
    if (lines.at(-1) !== "") lines.push("");
    lines.push(`### \`${reason}\``, "");
    for (const [text, where] of byReason.get(reason)!) {
      const from = [...new Set(where.map((w) => `${w.file} (${w.where})`))].join(", ");
      lines.push(`- ${from}:`, "", "  ```text", ...text.split("\n").map((l) => `  ${l}`), "  ```", "");
    }
  }
  while (lines.at(-1) === "") lines.pop();
  lines.push("", END);
  return lines.join("\n");
}

/** The doc with its generated part replaced (appended under a heading when it has none yet). */
export function refreshedDoc(doc: string, list: string = renderRefusalList()): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start >= 0 && end > start) return doc.slice(0, start) + list + doc.slice(end + END.length);
  return `${doc.trimEnd()}\n\n## Every refusal's text\n\n${list}\n`;
}

if (require.main === module) {
  const doc = readFileSync(REFUSALS_DOC, "utf8");
  const next = refreshedDoc(doc);
  writeFileSync(REFUSALS_DOC, next);
  process.stdout.write(`${relative(ROOT, REFUSALS_DOC)}: ${findRefusals().length} refusals ${next === doc ? "(unchanged)" : "written"}\n`);
}
