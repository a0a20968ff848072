export type LogFields = Record<string, string | number | boolean | null | undefined>;

/**
 * The product's own log. Adapters write it to a VS Code LogOutputChannel, stderr, or a file.
 * Nothing passed here may contain a token: adapters redact, but callers must not rely on it.
 */
export interface Log {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
