// The location of an incident, from its pods' (locate.ts): the one place the thread, `rwx scan`, the next steps and
// the drain advice read the layer, the actor and the node holding the fault from. Pure.
import type { Layer, Location } from '../domain/location.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Draft } from './group.js';
import { detachOutlook } from './outlook.js';

/** The layer most of the draft's pods are stuck at (ties: the first met), 'unknown' when it has none. */
function commonLayer(d: Draft): Layer {
  const counts = new Map<Layer, number>();
  for (const f of d.pods) {
    const l = f.location?.layer ?? 'unknown';
    counts.set(l, (counts.get(l) ?? 0) + 1);
  }
  let best: Layer = 'unknown';
  let n = 0;
  for (const [l, c] of counts)
    if (c > n) {
      best = l;
      n = c;
    }
  return best;
}

/**
 * Where the incident is stuck. A node incident: the holder node, located at 'node' when that node is not Ready
 * (its pods' location says so); a rollout: the plugin DaemonSet's new revision holds it, no node does; others: the
 * layer most pods are at, held by the incident's node when it has one.
 */
export function incidentLocation(index: ClusterIndex, d: Draft): Location {
  const l = placeOf(index, d);
  const health = [...new Set(d.pods.flatMap((f) => f.location?.volumeHealth ?? []))];
  return health.length > 0 ? { ...l, volumeHealth: health } : l;
}

/** The incident's layer, actor and holder (incidentLocation without the health monitor's lines). */
function placeOf(index: ClusterIndex, d: Draft): Location {
  const layer = commonLayer(d);
  const held = heldLocation(index, d);
  if (held) return held;
  const first = d.pods.find((f) => f.location?.layer === layer)?.location;
  const evidence = first?.evidence ?? [];
  if (d.rollout) {
    const ev = d.rollout.evidence;
    return {
      layer,
      actor: `the node plugin DaemonSet ${ev.daemonSet.namespace}/${ev.daemonSet.name} at revision ${ev.newRevision}`,
      evidence,
    };
  }
  if (d.key.startsWith('volume/'))
    return {
      layer,
      actor: `the volume behind claim ${d.key.slice('volume/'.length)} (its export, permissions or backend)`,
      evidence,
    };
  const own = d.pods.find((f) => f.location?.holder === d.node && d.node)?.location;
  if (d.verdict === 'FOLLOWS_NODE' && d.node)
    return {
      layer,
      actor: own?.actor ?? first?.actor ?? `the kubelet on ${d.node}`,
      holder: d.node,
      evidence: own?.evidence ?? evidence,
      ...(own?.unregistered ? { unregistered: own.unregistered } : {}),
    };
  return {
    layer,
    actor: first?.actor ?? 'not known',
    evidence,
    ...(d.node ? { holder: d.node } : {}),
    ...(first?.outlook ? { outlook: first.outlook } : {}),
  };
}

/**
 * The location of a node incident whose node holds the fault for pods elsewhere or is not Ready (group.ts rule 0):
 * the node's own ('node') when it is not Ready, else the attachment's, with what the controllers will do about the
 * volumes it holds (outlook.ts). Undefined for any other draft.
 */
function heldLocation(index: ClusterIndex, d: Draft): Location | undefined {
  const node = d.node;
  if (!node) return undefined;
  const locs = d.pods.flatMap((f) =>
    f.location?.holder === node && (f.location.holderHealth || f.node !== node) ? [f.location] : [],
  );
  const first = locs.find((l) => l.layer === 'node') ?? locs[0];
  if (!first) return undefined;
  const pvs =
    first.layer === 'node'
      ? index
          .attachmentsOnNode(node)
          .filter((va) => va.status?.attached)
          .map((va) => va.spec?.source?.persistentVolumeName ?? '')
          .filter(Boolean)
      : d.pods.flatMap((f) => (f.node !== node ? f.storage.flatMap((s) => (s.pv ? [s.pv] : [])) : []));
  const outlook = detachOutlook(index, node, first.holderHealth, [...new Set(pvs)].sort());
  return { ...first, evidence: [...new Set(locs.flatMap((l) => l.evidence))], ...(outlook ? { outlook } : {}) };
}

/** What the driver's health monitor reports of the incident's volumes, in one line; none when it says nothing. */
export function volumeHealthLines(l: Location): string[] {
  const h = l.volumeHealth ?? [];
  if (h.length === 0) return [];
  const shown = h.slice(0, 4).join('; ') + (h.length > 4 ? `; and ${h.length - 4} more` : '');
  return [`The driver reports a volume abnormal (CSI external-health-monitor events): ${shown}.`];
}

/** The location in one line, first among the explanations the thread and `rwx scan` show alike. */
export function locationLine(l: Location): string {
  const holder = l.holder ? `held by ${l.holder}` : 'held by no node';
  if (l.layer === 'unknown') return `Where: not known, no event says which step failed; ${holder}.`;
  return `Where: the ${l.layer} layer, owned by ${l.actor}; ${holder}.`;
}
