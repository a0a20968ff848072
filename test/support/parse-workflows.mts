/**
 * Runs GitHub's own workflow parser over workflows read from stdin (a JSON array of YAML texts) and
 * prints, for each, its errors and job ids. A separate tsx process: the parser is ESM only and
 * imports its schema JSON without an import attribute, which the test process's loader refuses.
 */
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from "@actions/workflow-parser";

async function parseOne(content: string): Promise<{ errors: string[]; jobs: string[] }> {
  const result = parseWorkflow({ name: "ticket-runner.yml", content }, new NoOperationTraceWriter());
  const errors = result.context.errors.getErrors().map((e) => e.message);
  if (!result.value) return { errors: [...errors, "no workflow value"], jobs: [] };
  const template = await convertWorkflowTemplate(result.context, result.value);
  return { errors: [...errors, ...(template.errors ?? []).map((e) => e.Message)], jobs: (template.jobs ?? []).map((j) => String(j.id)) };
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const texts = JSON.parse(Buffer.concat(chunks).toString("utf8")) as string[];
  const results = [];
  for (const text of texts) results.push(await parseOne(text));
  process.stdout.write(JSON.stringify(results));
}

void main();
