// Machine-readable output of every command: `-o json` and `-o yaml` print the same document (YAML is the JSON
// document re-encoded, so the schemas in docs/ describe both).
import type { CliIo } from './io.js';

/** Writes `doc` to stdout as indented JSON or as YAML, ending in a newline. */
export async function writeDocument(io: Pick<CliIo, 'stdout'>, format: 'json' | 'yaml', doc: unknown): Promise<void> {
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  // Loaded here only: the table and JSON paths do not pay for the YAML library.
  const { stringify } = await import('yaml');
  io.stdout.write(stringify(doc, { lineWidth: 0 }));
}
