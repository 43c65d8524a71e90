// `rwx gate`: the post-upgrade mount gate. Thin: flags, wiring (client-node, clock, Ctrl-C), printing.
// The one command that writes to the cluster; its RBAC is deploy/gate/, separate from the read-only bot.
import { RwxError } from '../errors.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { parseDuration } from '../domain/duration.js';
import { connect } from '../kube/connect.js';
import { outputFormat, parseFlags } from './args.js';
import type { CliIo, Command } from './io.js';
import { clientGateKube } from '../gate/client.js';
import { cleanupLeftovers } from '../gate/cleanup.js';
import type { GateKube } from '../gate/kube.js';
import { newRunId } from '../gate/plan.js';
import { gateExitCode, renderGateJson, renderGateTable } from '../gate/render.js';
import { runGate } from '../gate/run.js';

const HELP = `Usage: rwx gate --storage-class SC [--nodes a,b] [-n NS] [--timeout 5m] [--parallel 3] [-o table|json]
       rwx gate --cleanup [-n NS]

For every schedulable node (Ready, not cordoned) or each of --nodes: a fresh claim of SC and a short-lived pod
pinned to the node (spec.nodeName) that checks the mount, writes a file and reads it back. Prints one row per
node; everything created is deleted at the end, on timeout and on Ctrl-C. See docs/gate.md.

  --storage-class SC    StorageClass of the fresh claims (required unless --cleanup alone)
  --nodes a,b           only these nodes (a cordoned or NotReady one is listed as skipped)
  -n, --namespace NS    where the probes run (default rwx-gate; deploy/gate/ creates it with its RBAC)
  --timeout D           per node: how long a probe may take to mount, write and read back (default 5m)
  --parallel N          nodes probed at once (default 3; 1 = strictly one at a time)
  --image IMAGE         probe image with sh, grep, cat (default busybox:1.36)
  --size Q              claim size (default 1Gi)
  --access-mode M       claim access mode (default ReadWriteOnce; ReadWriteMany for RWX-only classes)
  --cleanup             delete leftovers of earlier runs (label app.kubernetes.io/managed-by=rwx-gate) first
  --kubeconfig FILE, --context NAME
  -o, --output FORMAT   table (default) or json

Exit: 0 every node passed, 2 a node failed, 1 error, 130 interrupted (after cleaning up).
`;

const FLAGS = {
  'storage-class': { type: 'string' },
  nodes: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  timeout: { type: 'string' },
  parallel: { type: 'string' },
  image: { type: 'string' },
  size: { type: 'string' },
  'access-mode': { type: 'string' },
  cleanup: { type: 'boolean' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACCESS_MODES = ['ReadWriteOnce', 'ReadWriteMany', 'ReadWriteOncePod'];

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
  const { values, positionals } = parseFlags(argv, FLAGS);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 0) throw new RwxError('USAGE', `unexpected argument "${positionals[0]}"`);
  const format = outputFormat(values.output);
  const storageClass = values['storage-class'];
  if (!storageClass && !values.cleanup) throw new RwxError('USAGE', '--storage-class is required');
  const namespace = values.namespace || 'rwx-gate';
  const timeoutMs = parseDuration(values.timeout ?? '5m', '--timeout');
  if (timeoutMs <= 0) throw new RwxError('USAGE', '--timeout must be positive');
  const parallel = Number(values.parallel ?? '3');
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > 32)
    throw new RwxError('USAGE', '--parallel must be an integer from 1 to 32');
  const accessMode = values['access-mode'] ?? 'ReadWriteOnce';
  if (!ACCESS_MODES.includes(accessMode))
    throw new RwxError('USAGE', `--access-mode must be one of ${ACCESS_MODES.join(', ')}`);
  const nodes = values.nodes
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (values.nodes !== undefined && (nodes?.length ?? 0) === 0)
    throw new RwxError('USAGE', '--nodes needs at least one node name');

  const kube =
    deps.kube ??
    clientGateKube((await connect({ kubeconfig: values.kubeconfig, context: values.context, env: io.env })).kc);
  if (values.cleanup) {
    const c = await cleanupLeftovers(kube, namespace);
    io.stderr.write(
      `cleanup in ${namespace}: deleted ${c.deleted.length} leftover object(s)${c.deleted.length ? `: ${c.deleted.join(', ')}` : ''}\n`,
    );
    for (const f of c.failed) io.stderr.write(`cleanup: could not delete ${f}\n`);
    if (!storageClass) return c.failed.length > 0 ? 1 : 0;
  }

  const ownSignal = deps.signal ? undefined : interruptSignal(io);
  const signal = deps.signal ?? ownSignal?.signal ?? new AbortController().signal;
  try {
    const report = await runGate(
      {
        storageClass: storageClass ?? '',
        namespace,
        timeoutMs,
        parallel,
        accessMode,
        ...(nodes ? { nodes } : {}),
        image: values.image ?? 'busybox:1.36',
        size: values.size ?? '1Gi',
        runId: deps.runId ?? newRunId(),
        pollMs: deps.pollMs ?? 1000,
      },
      {
        kube,
        clock: deps.clock ?? systemClock,
        signal,
        sleep: deps.sleep ?? ((ms) => abortableSleep(ms, signal)),
        progress: (line) => io.stderr.write(`rwx gate: ${line}\n`),
      },
    );
    io.stdout.write(format === 'json' ? renderGateJson(report) : renderGateTable(report));
    return gateExitCode(report);
  } finally {
    ownSignal?.dispose();
  }
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
