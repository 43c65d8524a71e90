// Where a read-only command gets the cluster from: a snapshot file (`--snapshot FILE|-`) or the live API
// (`--kubeconfig`, `--context`, else KUBECONFIG, ~/.kube/config, in-cluster). Shared by triage, scan,
// drain-check, diff and policy so every command accepts the same flags and fails the same way.
//
// Usage in a command:
//   const { values } = parseFlags(argv, FLAGS.triage);   // FLAGS spread SOURCE_FLAGS (flags.ts)
//   const { snapshot, conn } = await loadSource(values, io, { kinds: ['pods', 'nodes'] });
//   const index = ClusterIndex.fromSnapshot(snapshot);
import { RwxError } from '../errors.js';
import { KIND_KEYS, KINDS, type KindKey } from '../domain/kinds.js';
import type { Snapshot } from '../domain/snapshot.js';
import { openApi, type ApiConnection } from '../kube/connect.js';
import type { AccessCheck } from '../kube/access.js';
import { readCluster } from '../kube/read.js';
import { loadSnapshotFile } from '../kube/snapshot-file.js';
import { snapshotTime } from '../detect/snapshot-time.js';
import { IDLE_LIMIT_MS, shownMs, type Patience } from '../kube/patience.js';
import { timeoutValue } from './args.js';
import type { CommandName } from './flags.js';
import type { CliIo } from './io.js';

/** Values of the source flags as parseFlags returns them. */
export interface SourceFlags {
  snapshot?: string;
  kubeconfig?: string;
  context?: string;
  'request-timeout'?: string;
  namespace?: string;
  'all-namespaces'?: boolean;
}

/** The cluster as a command sees it; `conn` is set only in live mode (for access checks and follow-up reads). */
export interface Source {
  snapshot: Snapshot;
  conn?: ApiConnection;
  namespace?: string;
}

/**
 * Kinds that `--namespace` restricts. Driver-side kinds (daemonsets, controllerrevisions, leases) live in the
 * driver's own namespace and cluster-scoped kinds have none, so they are always read cluster-wide.
 */
export const NAMESPACE_FILTERED_KINDS: ReadonlySet<KindKey> = new Set(['pods', 'pvcs', 'events', 'jobs', 'cronJobs']);

/**
 * Loads the snapshot a command works on. `kinds` (default: all) limits what the live reader lists; a snapshot
 * file is taken as it is (kinds it lacks are in `snapshot.unreadable`). With `--namespace`, objects of
 * NAMESPACE_FILTERED_KINDS outside it are dropped (live: not listed); `-A` is the default made explicit, and
 * contradicts `-n`. Live, `onConnect` is called once connected, before the lists are read (to ask something else
 * of the API server meanwhile). Throws RwxError USAGE for conflicting
 * flags, INPUT for a bad file, KUBE_* / CONFIG for live failures; a 403 on one kind only marks it unreadable.
 */
export async function loadSource(
  flags: SourceFlags,
  io: CliIo,
  opts: {
    kinds?: readonly KindKey[];
    onConnect?: (conn: ApiConnection, namespace: string | undefined) => void;
    /** Names the command in what it says while it waits (default: rwx). */
    command?: CommandName;
  } = {},
): Promise<Source> {
  const namespace = flags.namespace === undefined || flags.namespace === '' ? undefined : flags.namespace;
  if (namespace && flags['all-namespaces'])
    throw new RwxError('USAGE', '-A (every namespace) and -n NAMESPACE contradict each other: give one');
  if (flags.snapshot !== undefined) {
    if (flags.kubeconfig !== undefined || flags.context !== undefined || flags['request-timeout'] !== undefined) {
      throw new RwxError(
        'USAGE',
        '--snapshot reads a file; it cannot be combined with --kubeconfig, --context or --request-timeout',
      );
    }
    const snapshot = await loadSnapshotFile(flags.snapshot, io.stdin);
    if (namespace) filterNamespace(snapshot, namespace);
    return namespace ? { snapshot, namespace } : { snapshot };
  }
  const conn = await openApi({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    env: io.env,
    patience: readPatience(flags['request-timeout'], io, opts.command),
  });
  opts.onConnect?.(conn, namespace);
  const kinds = opts.kinds ?? KIND_KEYS;
  const snapshot = await readCluster(conn, { kinds, namespace, namespacedKinds: NAMESPACE_FILTERED_KINDS });
  return namespace ? { snapshot, conn, namespace } : { snapshot, conn };
}

/**
 * How long a read command waits for the API server: `--request-timeout` as kubectl reads it (parseFlags has checked
 * it), and a line on stderr naming the server when it has not answered after a few seconds (io.waitNoticeMs).
 */
export function readPatience(requestTimeout: string | undefined, io: CliIo, command?: CommandName): Patience {
  const timeoutMs = requestTimeout === undefined ? undefined : timeoutValue(requestTimeout);
  const then =
    timeoutMs === undefined
      ? `giving up after ${shownMs(IDLE_LIMIT_MS)} of silence (--request-timeout sets the limit)`
      : timeoutMs === 0
        ? 'no --request-timeout: waiting until it answers'
        : `giving up after ${shownMs(timeoutMs)} (--request-timeout)`;
  const who = command ? `rwx ${command}` : 'rwx';
  return {
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(io.waitNoticeMs !== undefined ? { noticeAfterMs: io.waitNoticeMs } : {}),
    onWaiting: ({ server, waitedMs }) =>
      io.stderr.write(
        `${who}: waiting for the API server at ${server}: no answer after ${shownMs(waitedMs)}; ${then}\n`,
      ),
  };
}

/** Drops objects of NAMESPACE_FILTERED_KINDS outside `namespace`, in place. */
function filterNamespace(snapshot: Snapshot, namespace: string): void {
  for (const k of NAMESPACE_FILTERED_KINDS) {
    if (!KINDS[k].namespaced) continue;
    (snapshot[k] as { metadata?: { namespace?: string } }[]) = snapshot[k].filter(
      (o) => o.metadata?.namespace === namespace,
    );
  }
}

/**
 * The access reviews of a read (SelfSubjectAccessReview): list each kind, in `namespace` for the kinds -n
 * restricts, cluster-wide for the others.
 */
export function accessChecks(kinds: readonly KindKey[], namespace: string | undefined): AccessCheck[] {
  return kinds.map((kind) => (namespace && NAMESPACE_FILTERED_KINDS.has(kind) ? { kind, namespace } : { kind }));
}

/** Which clock ages are measured against: the --now flag, the snapshot's own newest time, or the wall clock. */
export type TimeBasis = 'given' | 'snapshot' | 'clock';

/**
 * The evaluation time of a command: `--now` when given; for a saved snapshot, the newest time recorded in it
 * (detect/snapshot-time.ts), so a file a few minutes old is read as of when it was taken; else the clock.
 */
export function evaluationTime(
  given: string | undefined,
  source: Source,
  clockNow: number,
): { now: number; basis: TimeBasis } {
  if (given !== undefined) return { now: Date.parse(given), basis: 'given' };
  const shown = source.conn ? undefined : snapshotTime(source.snapshot);
  return shown !== undefined ? { now: shown, basis: 'snapshot' } : { now: clockNow, basis: 'clock' };
}
