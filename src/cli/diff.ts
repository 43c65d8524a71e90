// `rwx diff daemonset/NAME [-n NS] [--from REV --to REV]`: the pod template difference between two revisions of a
// DaemonSet (default: the newest two), storage and security first. The same diff the FOLLOWS_ROLLOUT evidence shows.
import { ClusterIndex } from '../domain/cluster-index.js';
import type { DaemonSet } from '../domain/objects.js';
import { RwxError } from '../errors.js';
import { revisionsOf } from '../correlate/plugin-revision.js';
import { diffTemplates } from '../correlate/revision-diff.js';
import { renderDiff } from '../render/terminal-diff.js';
import { outputFormat, parseFlags } from './args.js';
import type { Command } from './io.js';
import { loadSource, SOURCE_FLAGS, SOURCE_HELP } from './source.js';

const HELP = `Usage: rwx diff daemonset/NAME [-n NS] [--from REV --to REV] [--snapshot FILE | --kubeconfig FILE] [-o json]

Pod template changes between two ControllerRevisions of a DaemonSet (default: the newest two): volumeMounts and
their mountPropagation, hostPath volumes, privileged, capabilities, image, then everything else.

${SOURCE_HELP}
  --from REV, --to REV  revision numbers to compare
  -o, --output FORMAT   table (default) or json
`;

function revisionFlag(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new RwxError('USAGE', `${flag}: "${v}" is not a revision number`);
  return Number(v);
}

function findDaemonSet(index: ClusterIndex, name: string, namespace: string | undefined): DaemonSet {
  if (namespace) {
    const ds = index.get('daemonSets', `${namespace}/${name}`);
    if (!ds) throw new RwxError('NOT_FOUND', `daemonset ${namespace}/${name} not found`);
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
  const { values, positionals } = parseFlags(
    argv,
    {
      ...SOURCE_FLAGS,
      from: { type: 'string' },
      to: { type: 'string' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output);
  const [target, ...extra] = positionals;
  const m = /^(?:daemonsets?|ds|daemonset\.apps)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(target ?? '');
  if (!m || extra.length > 0) throw new RwxError('USAGE', 'expected exactly one daemonset/NAME');
  const name = m[1] ?? '';
  const from = revisionFlag(values.from, '--from');
  const to = revisionFlag(values.to, '--to');
  const { snapshot } = await loadSource(values, io, { kinds: ['daemonSets', 'controllerRevisions'] });
  const index = ClusterIndex.fromSnapshot(snapshot);
  const ds = findDaemonSet(index, name, values.namespace);
  const revs = revisionsOf(index, ds);
  const pick = (n: number | undefined, fallback: number) => {
    if (n === undefined) return revs[fallback];
    const r = revs.find((x) => x.revision === n);
    if (!r)
      throw new RwxError(
        'NOT_FOUND',
        `revision ${n} of daemonset ${name} not found (have ${revs.map((x) => x.revision).join(', ') || 'none'})`,
      );
    return r;
  };
  const toRev = pick(to, 0);
  const fromRev = pick(from, to === undefined ? 1 : Math.max(1, revs.indexOf(toRev!) + 1));
  const title = `daemonset ${ds.metadata?.namespace}/${name}`;
  if (!toRev || !fromRev) {
    const msg = `${title} has ${revs.length} revision${revs.length === 1 ? '' : 's'}: nothing to compare`;
    io.stdout.write(
      format === 'json'
        ? `${JSON.stringify({ daemonSet: { namespace: ds.metadata?.namespace, name }, changes: [], note: msg })}\n`
        : `${msg}\n`,
    );
    return 0;
  }
  const changes = diffTemplates(fromRev.data?.spec?.template, toRev.data?.spec?.template);
  if (format === 'json') {
    io.stdout.write(
      `${JSON.stringify({ daemonSet: { namespace: ds.metadata?.namespace, name }, from: fromRev.revision, to: toRev.revision, changes }, null, 2)}\n`,
    );
  } else io.stdout.write(renderDiff(`${title} revision ${fromRev.revision} -> ${toRev.revision}`, changes));
  return 0;
};
