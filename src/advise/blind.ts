// Blind spots: the kinds an answer depends on that could not be read (forbidden, an error, the API server
// unreachable, a watch not synced yet, a snapshot file without them). An answer that depends on one is UNKNOWN,
// never OK: it says what could not be read and what that leaves undecided. The one table of what each kind
// decides, for drain advice, `rwx scan`, `/rwx drain` and the thread alike.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { BlindSpot, Incident } from '../domain/incident.js';
import type { KindKey } from '../domain/kinds.js';
import { FALLBACK_KINDS } from '../correlate/plugin-match.js';

/** What an evaluation cannot decide without each kind it reads. */
const UNDECIDED: Readonly<Partial<Record<KindKey, string>>> = {
  pods: 'which pods are stuck, on which nodes, and what a drain would evict',
  events: 'why a pod is stuck (a mount failure or something else)',
  pvcs: 'which claim and driver a stuck pod waits on',
  pvs: 'which driver a stuck volume uses',
  volumeAttachments:
    'whether a node holds stale volume attachments that would keep moved pods from attaching their volumes',
  daemonSets: 'whether the stuck mounts follow a node plugin rollout',
  controllerRevisions: 'which plugin revision each node runs, and what a rollback would restore',
  csiDrivers: 'which node plugin serves a driver whose plugin does not name it',
  csiNodes: 'which node plugin serves a driver whose plugin does not name it',
  storageClasses: 'which node plugin serves a driver whose plugin does not name it',
  jobs: 'whether a CronJob missed its runs because its pod is stuck',
  cronJobs: 'which CronJobs missed their scheduled runs',
};

/** The kinds every drain decision reads. */
const DRAIN_KINDS: readonly KindKey[] = [
  'pods',
  'events',
  'pvcs',
  'pvs',
  'volumeAttachments',
  'daemonSets',
  'controllerRevisions',
];

/** The kinds `rwx scan` reads to say "no incidents": the drain's, and the CronJob detector's. */
const SCAN_KINDS: readonly KindKey[] = [...DRAIN_KINDS, 'jobs', 'cronJobs'];

/**
 * The inputs of an answer over these incidents: the drain's kinds (scan's with `scan`), and the kinds the plugin
 * pairing by elimination reads when a stuck pod's driver has no node plugin DaemonSet found (then a rollout behind
 * it cannot be ruled out).
 */
function inputKinds(incidents: readonly Incident[], scan: boolean): KindKey[] {
  const unpaired = incidents.some((i) => i.driver !== undefined && i.driver !== 'unresolved' && !i.daemonSet);
  return [...new Set([...(scan ? SCAN_KINDS : DRAIN_KINDS), ...(unpaired ? FALLBACK_KINDS : [])])];
}

/** The blind spots of an answer (drain advice, or with `scan` the list of incidents), in input order. */
export function blindSpots(index: ClusterIndex, incidents: readonly Incident[], scan = false): BlindSpot[] {
  const reasons = new Map(index.unreadable.map((u) => [u.kind, u.reason]));
  return inputKinds(incidents, scan).flatMap((kind) => {
    const reason = reasons.get(kind);
    return reason === undefined ? [] : [{ kind, reason, undecided: UNDECIDED[kind] ?? 'part of the evaluation' }];
  });
}

/** "pods (forbidden: ...), events (not in snapshot)". */
export function blindKinds(spots: readonly BlindSpot[]): string {
  return spots.map((s) => `${s.kind} (${s.reason})`).join(', ');
}

/** One sentence: what could not be read and what that leaves undecided. */
export function blindSentence(spots: readonly BlindSpot[]): string {
  const undecided = [...new Set(spots.map((s) => s.undecided))];
  return `Could not read ${blindKinds(spots)}, which leaves undecided ${undecided.join('; ')}.`;
}

/** What to do about blind spots: the access to check, or the API server to wait for. */
export function blindSteps(spots: readonly BlindSpot[]): string[] {
  const kube = spots.filter((s) => s.kind !== 'open incidents');
  const forbidden = kube.filter((s) => /forbidden/i.test(s.reason)).map((s) => s.kind);
  const file = kube.filter((s) => s.reason === 'not in snapshot').map((s) => s.kind);
  const store = kube.length < spots.length;
  const other = kube.filter((s) => !forbidden.includes(s.kind) && !file.includes(s.kind)).map((s) => s.kind);
  return [
    ...(store ? ["Make the bot's Redis answer (--redis URL or REDIS_URL, and RWX_REDIS_PREFIX), then ask again."] : []),
    ...(forbidden.length > 0
      ? [`Grant the bot get, list and watch on ${forbidden.join(', ')} (deploy/ has the ClusterRole), then ask again.`]
      : []),
    ...(file.length > 0
      ? [`Add ${file.join(', ')} to the snapshot file (kubectl get ... -A -o json), then ask again.`]
      : []),
    ...(other.length > 0
      ? [`Wait until ${other.join(', ')} can be read again (API server reachable, watches synced), then ask again.`]
      : []),
  ];
}
