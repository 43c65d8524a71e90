// `rwx policy check`: CSI node plugins must mount the kubelet directory with mountPropagation: Bidirectional.
// Thin: reads the inputs, runs the pure check (src/policy), prints. Exit 0 clean, 2 violations, 1 error.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RwxError, toRwxError } from '../errors.js';
import { readInputText } from '../kube/input.js';
import { outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { CliIo, Command } from './io.js';
import { writeDocument } from './output.js';
import { READ_KINDS } from './read-kinds.js';
import { loadSource, type SourceFlags } from './source.js';
import { parseManifests, type ManifestObject } from '../policy/manifests.js';
import { buildReport, exitCodeOf, renderJson, renderTable } from '../policy/report.js';

const HELP = helpText(
  'policy',
  `Checks CSI node plugins (DaemonSets and StatefulSets running node-driver-registrar or mounting the kubelet
plugins_registry dir) for mountPropagation: Bidirectional on every kubelet-directory hostPath mount of the
plugin container(s). Windows plugins are skipped. See docs/policy.md for the exact rule. -f reads what --snapshot
reads (YAML documents, JSON values concatenated or in an array, kubectl Lists, rendered Helm), with the same size
limit; an unrendered Helm template is an error. An input with no CSI node plugin in it is named on stderr
(a check pointed at the wrong file checks nothing): --require-plugin makes that exit 2.`,
);

/** `rwx policy check ...` */
export const run: Command = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, FLAGS.policy, true);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals[0] !== 'check' || positionals.length > 1)
    throw new RwxError('USAGE', 'expected `rwx policy check` (the only policy subcommand)');
  const format = outputFormat(values.output, FLAGS.policy.output.check.values);
  const files = values.filename ?? [];
  if (files.length === 0 && !values.cluster) throw new RwxError('USAGE', 'give -f FILE (or - for stdin) or --cluster');
  if (files.length > 0 && values.cluster) throw new RwxError('USAGE', '-f and --cluster cannot be combined');
  if (!values.cluster && ['kubeconfig', 'context', 'request-timeout'].some((f) => f in values)) {
    throw new RwxError('USAGE', '--kubeconfig, --context and --request-timeout only apply with --cluster');
  }

  const { objects, errors, inputs, fileCount } = values.cluster
    ? await readCluster(
        { kubeconfig: values.kubeconfig, context: values.context, 'request-timeout': values['request-timeout'] },
        io,
      )
    : await readFiles(files, io);
  const report = buildReport(objects, errors, fileCount);
  if (format === 'table') io.stdout.write(renderTable(report, { cluster: values.cluster === true }));
  else if (format === 'json') io.stdout.write(renderJson(report));
  else await writeDocument(io, format, JSON.parse(renderJson(report)));
  // The table shows errors in its rows; with JSON on stdout (usually piped), say it on stderr too.
  if (format !== 'table') for (const e of errors) io.stderr.write(`rwx policy: ${e.file}: ${e.message}\n`);
  const empty = inputs.filter((i) => i.plugins === 0 && !i.failed);
  for (const i of empty)
    io.stderr.write(
      `rwx policy: ${i.label}: no CSI node plugin in it, so nothing was checked${values['require-plugin'] ? '' : ' (--require-plugin makes this a failure)'}\n`,
    );
  const code = exitCodeOf(report);
  return code === 0 && values['require-plugin'] && empty.length > 0 ? 2 : code;
};

/** What the check reads: the objects, the files that could not be read, and how many files it read. */
interface PolicyInput {
  objects: ManifestObject[];
  errors: { file: string; message: string }[];
  /** Each -f argument (or the cluster) and how many CSI node plugins it held. */
  inputs: { label: string; plugins: number; failed: boolean }[];
  fileCount: number;
}

/** --cluster: the live DaemonSets (KUBE_FORBIDDEN when they cannot be listed), counted as one input. */
async function readCluster(flags: SourceFlags, io: CliIo): Promise<PolicyInput> {
  const { snapshot } = await loadSource(flags, io, { kinds: READ_KINDS.policy, command: 'policy' });
  const unreadable = snapshot.unreadable.find((u) => u.kind === 'daemonSets');
  if (unreadable) throw new RwxError('KUBE_FORBIDDEN', `cannot list DaemonSets: ${unreadable.reason}`);
  const objects = snapshot.daemonSets.map((ds) => ({
    source: 'cluster',
    line: 0,
    object: { kind: 'DaemonSet', ...ds },
  }));
  const inputs = [{ label: 'the cluster', plugins: buildReport(objects, [], 1).summary.plugins, failed: false }];
  return { objects, errors: [], inputs, fileCount: 1 };
}

/** -f: each file, directory (its manifest files) or - (stdin), in order; a file that cannot be read is an error. */
async function readFiles(files: readonly string[], io: CliIo): Promise<PolicyInput> {
  const read: PolicyInput = { objects: [], errors: [], inputs: [], fileCount: 0 };
  const { objects, errors, inputs } = read;
  for (const arg of files) {
    const before = { objects: objects.length, errors: errors.length };
    for (const input of expand(arg)) {
      read.fileCount++;
      const label = input === '-' ? '<stdin>' : input;
      try {
        objects.push(...parseManifests(await readInputText(input, io.stdin, label), label));
      } catch (e) {
        errors.push({ file: label, message: stripFile(toRwxError(e, 'INPUT').message, label) });
      }
    }
    const mine = buildReport(objects.slice(before.objects), [], 0).summary;
    inputs.push({
      label: arg === '-' ? '<stdin>' : arg,
      plugins: mine.plugins + mine.skipped,
      failed: errors.length > before.errors,
    });
  }
  return read;
}

/** A directory's manifest files (sorted, not recursive); a file or - as it is. */
function expand(f: string): string[] {
  let isDir = false;
  try {
    isDir = f !== '-' && statSync(f).isDirectory();
  } catch {
    /* reported when read */
  }
  if (!isDir) return [f];
  return readdirSync(f)
    .filter((n) => /\.(ya?ml|json)$/.test(n))
    .sort()
    .map((name) => join(f, name));
}

/** The reader prefixes messages with the file; the report has its own FILE column. */
function stripFile(message: string, label: string): string {
  return message.startsWith(`${label}: `) ? message.slice(label.length + 2) : message;
}
