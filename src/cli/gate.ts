// `rwx gate`: the post-upgrade mount gate. Thin: flags, wiring (client-node, clock, Ctrl-C), printing.
// The one command that writes to the cluster; its RBAC is deploy/gate/, separate from the read-only bot.
import { RwxError } from '../errors.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { connect } from '../kube/connect.js';
import { durationValue, type FlagValues, numberValue, outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { CliIo, Command } from './io.js';
import { writeDocument } from './output.js';
import { clientGateKube } from '../gate/client.js';
import { cleanupLeftovers } from '../gate/cleanup.js';
import type { GateKube } from '../gate/kube.js';
import { newRunId } from '../gate/plan.js';
import { gateExitCode, renderGateJson, renderGateTable } from '../gate/render.js';
import { type GateOptions, runGate } from '../gate/run.js';

const HELP = helpText(
  'gate',
  `For every schedulable node (Ready, not cordoned) or each of --nodes: a fresh claim of SC and a short-lived pod
pinned to the node (spec.nodeName) that checks the mount, writes a file and reads it back. Prints one row per
node; everything created is deleted at the end, on timeout and on Ctrl-C. --cleanup deletes leftovers of earlier
runs (label app.kubernetes.io/managed-by=rwx-gate). The probes run in -n NS (default rwx-gate; deploy/gate/
creates it with its RBAC). See docs/gate.md.`,
);

/** What tests inject: the API, clock, sleep and an abort signal standing in for Ctrl-C. */
export interface GateCommandDeps {
  kube?: GateKube;
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
  runId?: string;
  pollMs?: number;
}

/** `rwx gate ...` with injectable collaborators; `run` is this with the real ones. */
export async function gateCommand(argv: string[], io: CliIo, deps: GateCommandDeps = {}): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS.gate);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 0) throw new RwxError('USAGE', `unexpected argument "${positionals[0]}"`);
  const format = outputFormat(values.output, FLAGS.gate.output.check.values);
  const probes = probeOptions(values);
  const kube =
    deps.kube ??
    clientGateKube((await connect({ kubeconfig: values.kubeconfig, context: values.context, env: io.env })).kc);
  if (values.cleanup) {
    const failed = await cleanup(kube, probes.namespace, io);
    if (!values['storage-class']) return failed ? 1 : 0;
  }

  const ownSignal = deps.signal ? undefined : interruptSignal(io);
  const signal = deps.signal ?? ownSignal?.signal ?? new AbortController().signal;
  try {
    const report = await runGate(
      { ...probes, runId: deps.runId ?? newRunId(), pollMs: deps.pollMs ?? 1000 },
      {
        kube,
        clock: deps.clock ?? systemClock,
        signal,
        sleep: deps.sleep ?? ((ms) => abortableSleep(ms, signal)),
        progress: (line) => io.stderr.write(`rwx gate: ${line}\n`),
      },
    );
    if (format === 'json') io.stdout.write(renderGateJson(report));
    else if (format === 'yaml') await writeDocument(io, format, JSON.parse(renderGateJson(report)));
    else io.stdout.write(renderGateTable(report));
    return gateExitCode(report);
  } finally {
    ownSignal?.dispose();
  }
}

/** The run's options from the flags, with their defaults; throws RwxError('USAGE') on a missing or empty one. */
function probeOptions(values: FlagValues<typeof FLAGS.gate>): Omit<GateOptions, 'runId' | 'pollMs'> {
  const storageClass = values['storage-class'];
  if (!storageClass && !values.cleanup) throw new RwxError('USAGE', '--storage-class is required');
  const namespace = values.namespace || 'rwx-gate';
  const timeoutMs = durationValue(values.timeout, '--timeout') ?? 5 * 60_000;
  const parallel = numberValue(values.parallel) ?? 3;
  const accessMode = values['access-mode'] ?? 'ReadWriteOnce';
  const nodes = values.nodes
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (values.nodes !== undefined && (nodes?.length ?? 0) === 0)
    throw new RwxError('USAGE', '--nodes needs at least one node name');
  return {
    storageClass: storageClass ?? '',
    namespace,
    timeoutMs,
    parallel,
    accessMode,
    ...(nodes ? { nodes } : {}),
    image: values.image ?? 'busybox:1.36',
    size: values.size ?? '1Gi',
  };
}

/** --cleanup: deletes earlier runs' leftovers in `namespace`, saying what on stderr; true when a delete failed. */
async function cleanup(kube: GateKube, namespace: string, io: CliIo): Promise<boolean> {
  const c = await cleanupLeftovers(kube, namespace);
  io.stderr.write(
    `cleanup in ${namespace}: deleted ${c.deleted.length} leftover object(s)${c.deleted.length ? `: ${c.deleted.join(', ')}` : ''}\n`,
  );
  for (const f of c.failed) io.stderr.write(`cleanup: could not delete ${f}\n`);
  return c.failed.length > 0;
}

/** `rwx gate ...` */
export const run: Command = (argv, io) => gateCommand(argv, io);

/** Ctrl-C (SIGINT) and SIGTERM abort the run, which then cleans up; a second Ctrl-C exits at once. */
function interruptSignal(io: CliIo): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const onSignal = () => {
    if (ac.signal.aborted) process.exit(130);
    io.stderr.write('rwx gate: interrupted, deleting what this run created (Ctrl-C again to quit now)\n');
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
  });
}
