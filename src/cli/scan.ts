// `rwx scan`: one pass of detectors and correlator over a snapshot or the live cluster; prints incidents.
// Exit 0 when there are none, 2 when there are any, 1 on error.
import { ClusterIndex } from '../domain/cluster-index.js';
import { parseDuration } from '../domain/duration.js';
import { RwxError } from '../errors.js';
import type { DriverDaemonSets } from '../correlate/plugin-finder.js';
import { evaluate, type EvaluateOptions } from '../evaluate/evaluate.js';
import { renderIncidents } from '../render/terminal-incidents.js';
import { outputFormat, parseFlags } from './args.js';
import type { Command } from './io.js';
import { loadSource, SOURCE_FLAGS, SOURCE_HELP } from './source.js';

/** Flags shared by scan and drain-check: thresholds, plugin overrides and the evaluation time. */
export const EVAL_FLAGS = {
  'stuck-after': { type: 'string' },
  plugin: { type: 'string', multiple: true },
  now: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Help lines for EVAL_FLAGS. */
export const EVAL_HELP = [
  '  --stuck-after DUR     a pod is stuck after this long (default 5m)',
  '  --plugin DRIVER=NS/DAEMONSET   node plugin DaemonSet of a driver, when its registration path does not name it',
  '  --now TIME            evaluate as of this RFC 3339 time (default: now; useful for a saved snapshot)',
  '  -o, --output FORMAT   table (default) or json',
].join('\n');

/** Parsed EVAL_FLAGS values. */
export interface EvalSettings {
  now: number;
  stuckAfterMs?: number;
  driverDaemonSets: DriverDaemonSets;
  format: string;
}

/** The evaluation options EVAL_FLAGS ask for. */
export function evaluateOptions(s: EvalSettings): EvaluateOptions {
  return {
    now: s.now,
    driverDaemonSets: s.driverDaemonSets,
    ...(s.stuckAfterMs !== undefined ? { config: { stuckAfterMs: s.stuckAfterMs } } : {}),
  };
}

/** Validates EVAL_FLAGS values; throws RwxError('USAGE') naming the bad flag. */
export function evalSettings(values: {
  'stuck-after'?: string;
  plugin?: string[];
  now?: string;
  output?: string;
}): EvalSettings {
  const out: EvalSettings = { now: Date.now(), driverDaemonSets: {}, format: outputFormat(values.output) };
  if (values.now !== undefined) {
    const t = Date.parse(values.now);
    if (Number.isNaN(t)) throw new RwxError('USAGE', `--now: "${values.now}" is not an RFC 3339 time`);
    out.now = t;
  }
  if (values['stuck-after'] !== undefined) {
    const ms = parseDuration(values['stuck-after'], '--stuck-after');
    if (ms <= 0) throw new RwxError('USAGE', '--stuck-after must be positive');
    out.stuckAfterMs = ms;
  }
  for (const p of values.plugin ?? []) {
    const m = /^([^=\s]+)=([a-z0-9.-]+)\/([a-z0-9.-]+)$/.exec(p);
    if (!m) throw new RwxError('USAGE', `--plugin: "${p}" is not DRIVER=NAMESPACE/DAEMONSET`);
    out.driverDaemonSets[m[1] ?? ''] = `${m[2]}/${m[3]}`;
  }
  return out;
}

const HELP = `Usage: rwx scan [--snapshot FILE | --kubeconfig FILE] [-o json] [--stuck-after 5m]

One pass of the detectors (pods stuck ContainerCreating or Terminating, CronJobs with missed runs) and the
correlator (FOLLOWS_ROLLOUT / FOLLOWS_NODE / UNEXPLAINED / NOT_STORAGE). Exit 0: no incident; 2: incidents; 1: error.

${SOURCE_HELP}
${EVAL_HELP}
`;

/** Runs `rwx scan`. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, { ...SOURCE_FLAGS, ...EVAL_FLAGS });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const s = evalSettings(values);
  const { snapshot } = await loadSource(values, io);
  const index = ClusterIndex.fromSnapshot(snapshot);
  const { incidents } = evaluate(index, evaluateOptions(s));
  if (s.format === 'json')
    io.stdout.write(`${JSON.stringify({ evaluatedAt: new Date(s.now).toISOString(), incidents }, null, 2)}\n`);
  else io.stdout.write(renderIncidents(incidents));
  for (const u of snapshot.unreadable)
    io.stderr.write(`rwx scan: warning: ${u.kind} unreadable (${u.reason}); findings that need it may be missing\n`);
  return incidents.length > 0 ? 2 : 0;
};
