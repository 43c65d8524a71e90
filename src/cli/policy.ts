// `rwx policy check`: CSI node plugins must mount the kubelet directory with mountPropagation: Bidirectional.
// Thin: reads the inputs, runs the pure check (src/policy), prints. Exit 0 clean, 2 violations, 1 error.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RwxError, toRwxError } from '../errors.js';
import { outputFormat, parseFlags } from './args.js';
import type { Command } from './io.js';
import { loadSource } from './source.js';
import { parseManifests, type ManifestObject } from '../policy/manifests.js';
import { buildReport, exitCodeOf, renderJson, renderTable } from '../policy/report.js';

const HELP = `Usage: rwx policy check (-f FILE|DIR|- ... | --cluster) [-o table|json]

Checks CSI node plugins (DaemonSets and StatefulSets running node-driver-registrar or mounting the kubelet
plugins_registry dir) for mountPropagation: Bidirectional on every kubelet-directory hostPath mount of the
plugin container(s). Windows plugins are skipped. See docs/policy.md for the exact rule.

  -f, --filename FILE   manifest file (multi-document YAML/JSON, kubectl Lists, rendered Helm); a directory
                        reads its *.yaml, *.yml, *.json; - reads stdin. Repeatable.
  --cluster             check the live DaemonSets instead (--kubeconfig FILE, --context NAME)
  -o, --output FORMAT   table (default) or json

Exit: 0 clean, 2 violations, 1 error (including a file that is an unrendered Helm template).
`;

const FLAGS = {
  filename: { type: 'string', short: 'f', multiple: true },
  cluster: { type: 'boolean' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `rwx policy check ...` */
export const run: Command = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, FLAGS, true);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals[0] !== 'check' || positionals.length > 1)
    throw new RwxError('USAGE', 'expected `rwx policy check` (the only policy subcommand)');
  const format = outputFormat(values.output);
  const files = values.filename ?? [];
  if (files.length === 0 && !values.cluster) throw new RwxError('USAGE', 'give -f FILE (or - for stdin) or --cluster');
  if (files.length > 0 && values.cluster) throw new RwxError('USAGE', '-f and --cluster cannot be combined');
  if (!values.cluster && (values.kubeconfig !== undefined || values.context !== undefined)) {
    throw new RwxError('USAGE', '--kubeconfig and --context only apply with --cluster');
  }

  const objects: ManifestObject[] = [];
  const errors: { file: string; message: string }[] = [];
  let fileCount = 0;
  if (values.cluster) {
    const { snapshot } = await loadSource({ kubeconfig: values.kubeconfig, context: values.context }, io, {
      kinds: ['daemonSets'],
    });
    const unreadable = snapshot.unreadable.find((u) => u.kind === 'daemonSets');
    if (unreadable) throw new RwxError('KUBE_FORBIDDEN', `cannot list DaemonSets: ${unreadable.reason}`);
    for (const ds of snapshot.daemonSets)
      objects.push({ source: 'cluster', line: 0, object: { kind: 'DaemonSet', ...ds } });
    fileCount = 1;
  } else {
    for (const input of expand(files)) {
      fileCount++;
      try {
        const label = input === '-' ? '<stdin>' : input;
        objects.push(...parseManifests(input === '-' ? await readAll(io.stdin) : readText(input), label));
      } catch (e) {
        errors.push({
          file: input === '-' ? '<stdin>' : input,
          message: stripFile(toRwxError(e, 'INPUT').message, input),
        });
      }
    }
  }
  const report = buildReport(objects, errors, fileCount);
  io.stdout.write(format === 'json' ? renderJson(report) : renderTable(report));
  // The table shows errors in its rows; with JSON on stdout (usually piped), say it on stderr too.
  if (format === 'json') for (const e of errors) io.stderr.write(`rwx policy: ${e.file}: ${e.message}\n`);
  return exitCodeOf(report);
};

/** Expands directories to their manifest files (sorted, not recursive); files and - pass through. */
function expand(inputs: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of inputs) {
    let isDir = false;
    try {
      isDir = f !== '-' && statSync(f).isDirectory();
    } catch {
      /* reported when read */
    }
    if (!isDir) {
      out.push(f);
      continue;
    }
    for (const name of readdirSync(f)
      .filter((n) => /\.(ya?ml|json)$/.test(n))
      .sort())
      out.push(join(f, name));
  }
  return out;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code ?? 'unreadable';
    throw new RwxError('INPUT', `cannot read: ${code === 'ENOENT' ? 'no such file' : code}`, { cause: e });
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

/** parseManifests prefixes messages with the file; the report has its own FILE column. */
function stripFile(message: string, file: string): string {
  const label = file === '-' ? '<stdin>' : file;
  return message.startsWith(`${label}: `) ? message.slice(label.length + 2) : message;
}
