// `rwx diff daemonset/NAME [-n NS] [--from REV --to REV]`: the pod template difference between two revisions of a
// DaemonSet (default: the newest two), storage and security first. The same diff the FOLLOWS_ROLLOUT evidence shows.
import { ClusterIndex } from '../domain/cluster-index.js';
import type { ControllerRevision, DaemonSet } from '../domain/objects.js';
import { RwxError } from '../errors.js';
import { revisionsOf } from '../correlate/plugin-revision.js';
import { diffTemplates } from '../correlate/revision-diff.js';
import { renderDiff } from '../render/terminal-diff.js';
import { numberValue, outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { writeDocument } from './output.js';
import { READ_KINDS } from './read-kinds.js';
import { loadSource } from './source.js';

const HELP = helpText(
  'diff',
  `Pod template changes between two ControllerRevisions of a DaemonSet (default: the newest two): volumeMounts and
their mountPropagation, hostPath volumes, privileged, capabilities, image, then everything else. The DaemonSet is
looked up in -n NS, else in the kubeconfig context's namespace when it names one, else (and with -A) in every
namespace.`,
);

/** The DaemonSet NAME in `namespace`, or in any namespace (then it must be the only one of that name). */
function findDaemonSet(index: ClusterIndex, name: string, namespace: string | undefined, hint = ''): DaemonSet {
  if (namespace) {
    const ds = index.get('daemonSets', `${namespace}/${name}`);
    if (!ds) throw new RwxError('NOT_FOUND', `daemonset ${namespace}/${name} not found${hint}`);
    return ds;
  }
  const matches = [...index.all('daemonSets')].filter((d) => d.metadata?.name === name);
  if (matches.length === 0) throw new RwxError('NOT_FOUND', `daemonset ${name} not found in any namespace`);
  if (matches.length > 1)
    throw new RwxError(
      'USAGE',
      `daemonset ${name} exists in ${matches.map((d) => d.metadata?.namespace).join(', ')}: give -n NAMESPACE`,
    );
  return matches[0]!;
}

/** Runs `rwx diff`. */
export const run: Command = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, FLAGS.diff, true);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output, FLAGS.diff.output.check.values);
  const name = daemonSetName(positionals);
  const from = numberValue(values.from);
  const to = numberValue(values.to);
  // DaemonSets and their revisions are read in every namespace (-n does not filter these kinds); the namespace
  // picks among them: -n, else the context's own (as kubectl would), else every namespace.
  const { snapshot, conn } = await loadSource(values, io, {
    kinds: READ_KINDS.diff,
    command: 'diff',
  });
  const index = ClusterIndex.fromSnapshot(snapshot);
  const namespace = values.namespace || (values['all-namespaces'] ? undefined : conn?.namespace);
  const hint = values.namespace ? '' : " (the kubeconfig context's namespace; -n NS or -A to look elsewhere)";
  const ds = findDaemonSet(index, name, namespace, hint);
  const revs = revisionsOf(index, ds);
  const toRev = pickRevision(revs, name, to, 0);
  const fromRev = pickRevision(revs, name, from, to === undefined ? 1 : Math.max(1, revs.indexOf(toRev!) + 1));
  const title = `daemonset ${ds.metadata?.namespace}/${name}`;
  const daemonSet = { namespace: ds.metadata?.namespace, name };
  if (!toRev || !fromRev) {
    const msg = `${title} has ${revs.length} revision${revs.length === 1 ? '' : 's'}: nothing to compare`;
    if (format === 'table') io.stdout.write(`${msg}\n`);
    else await writeDocument(io, format, { daemonSet, changes: [], note: msg });
    return 0;
  }
  const changes = diffTemplates(fromRev.data?.spec?.template, toRev.data?.spec?.template);
  if (format !== 'table')
    await writeDocument(io, format, { daemonSet, from: fromRev.revision, to: toRev.revision, changes });
  else io.stdout.write(renderDiff(`${title} revision ${fromRev.revision} -> ${toRev.revision}`, changes));
  return 0;
};

/** The NAME of the one `daemonset/NAME` argument (ds/, daemonsets/ and daemonset.apps/ too); else USAGE. */
function daemonSetName(positionals: readonly string[]): string {
  const [target, ...extra] = positionals;
  const m = /^(?:daemonsets?|ds|daemonset\.apps)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(target ?? '');
  if (!m || extra.length > 0) throw new RwxError('USAGE', 'expected exactly one daemonset/NAME');
  return m[1] ?? '';
}

/**
 * Revision `n` of the DaemonSet (NOT_FOUND naming the ones there are when it has none such), or without `n` the one
 * at `fallback` in `revs` (newest first), if any.
 */
function pickRevision(
  revs: readonly ControllerRevision[],
  name: string,
  n: number | undefined,
  fallback: number,
): ControllerRevision | undefined {
  if (n === undefined) return revs[fallback];
  const r = revs.find((x) => x.revision === n);
  if (!r)
    throw new RwxError(
      'NOT_FOUND',
      `revision ${n} of daemonset ${name} not found (have ${revs.map((x) => x.revision).join(', ') || 'none'})`,
    );
  return r;
}
