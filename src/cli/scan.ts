// `rwx scan`: one pass of detectors and correlator over a snapshot or the live cluster; prints incidents.
// Exit 0 when there are none, 2 when there are any, 5 when none were found in an incomplete view, 1 on error.
import { ClusterIndex } from '../domain/cluster-index.js';
import type { DriverDaemonSets } from '../correlate/plugin-finder.js';
import type { NsName } from '../domain/findings.js';
import { evaluate, type EvaluateOptions } from '../evaluate/evaluate.js';
import { renderIncidents } from '../render/terminal-incidents.js';
import { durationValue, outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { writeDocument } from './output.js';
import { loadSource } from './source.js';

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

/** EVAL_FLAGS values (flags.ts; parseFlags has checked each) as settings; `formats` are the command's -o formats. */
export function evalSettings(
  values: { 'stuck-after'?: string; plugin?: string[]; now?: string; output?: string },
  formats: readonly string[],
): EvalSettings {
  const plugins: Record<string, NsName> = {};
  const out: EvalSettings = {
    now: Date.now(),
    driverDaemonSets: plugins,
    format: outputFormat(values.output, formats),
  };
  if (values.now !== undefined) out.now = Date.parse(values.now);
  const stuckAfterMs = durationValue(values['stuck-after'], '--stuck-after');
  if (stuckAfterMs !== undefined) out.stuckAfterMs = stuckAfterMs;
  for (const p of values.plugin ?? []) {
    const [driver = '', daemonSet = ''] = p.split('=');
    const [namespace = '', name = ''] = daemonSet.split('/');
    plugins[driver] = { namespace, name };
  }
  return out;
}

/** `rwx scan` found nothing, but something it reads could not be read: "no incidents" is not known. */
const CANNOT_TELL = 5;

const HELP = helpText(
  'scan',
  `One pass of the detectors (pods stuck ContainerCreating or Terminating, CronJobs with missed runs) and the
correlator (FOLLOWS_ROLLOUT / FOLLOWS_NODE / UNEXPLAINED / NOT_STORAGE). -o wide adds each incident's driver,
DaemonSet and revision, and per node the plugin's DaemonSet, start time and pod counts. -o name prints each incident's key, one
a line. A kind it reads that could not be read (forbidden, missing from the snapshot) is said above the incidents;
with none found, it says "cannot tell" instead of "No incidents".`,
);

/** Runs `rwx scan`. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, FLAGS.scan);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const s = evalSettings(values, FLAGS.scan.output.check.values);
  const { snapshot } = await loadSource(values, io, { command: 'scan' });
  const index = ClusterIndex.fromSnapshot(snapshot);
  const { incidents, blind } = evaluate(index, evaluateOptions(s));
  if (s.format === 'json' || s.format === 'yaml') {
    const out = { evaluatedAt: new Date(s.now).toISOString(), incidents, ...(blind.length > 0 ? { blind } : {}) };
    await writeDocument(io, s.format, out);
  } else if (s.format === 'name') io.stdout.write(incidents.map((i) => `${i.key}\n`).join(''));
  else io.stdout.write(renderIncidents(incidents, blind, { wide: s.format === 'wide' }));
  for (const u of snapshot.unreadable)
    io.stderr.write(`rwx scan: warning: ${u.kind} unreadable (${u.reason}); findings that need it may be missing\n`);
  return incidents.length > 0 ? 2 : blind.length > 0 ? CANNOT_TELL : 0;
};
