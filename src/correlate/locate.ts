// Locating a stuck pod: the layer it is stuck at, the actor that owns that layer, and the node that holds the fault.
// Rules are a list, first match wins; each reads the pod's events as Kubernetes writes them and the objects they
// name. Pure. The wording matched comes from the Kubernetes source (cited in test/correlate/locate.test.ts).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { EventEvidence, StuckPodFinding } from '../domain/findings.js';
import type { Layer, Location } from '../domain/location.js';
import { describeHealth, notReady } from '../domain/node-health.js';
import { settingOutlook } from './outlook.js';
import { volumeHealth } from './volume-health.js';

/** One locating rule: the location when the rule applies to the pod, else undefined. */
export interface LocateRule {
  name: string;
  locate(index: ClusterIndex, f: StuckPodFinding): Location | undefined;
}

/** The attach/detach controller's event when another node holds an exclusive attachment (reconciler.go). */
const MULTI_ATTACH = /Multi-Attach error for volume "([^"]+)"/;
/** The kubelet's volume manager: "unmounted volumes=[a], unattached volumes=[a]" (volume_manager.go). */
const UNATTACHED = /unattached volumes=\[([^\]]+)\]/;
/** The kubelet's CSI client when the node plugin never registered on the node (csi_client.go newCsiDriverClient). */
const NOT_REGISTERED = /driver name (\S+) not found in the list of registered CSI drivers/;

const line = (e: EventEvidence): string => `${e.reason}: ${e.message}`;
const find = (f: StuckPodFinding, re: RegExp): EventEvidence | undefined => f.events.find((e) => re.test(e.message));

/** The pod's node is not Ready: whatever else its events say, the node itself holds it. */
const nodeDown: LocateRule = {
  name: 'node not ready',
  locate(index, f) {
    const h = notReady(index, f.node);
    if (!h) return undefined;
    return {
      layer: 'node',
      actor: `the kubelet on ${h.node}, which is not posting a Ready status`,
      holder: h.node,
      evidence: [describeHealth(h)],
      holderHealth: h,
    };
  },
};

/** Multi-Attach: the volume is attached to another node; that node, named by its VolumeAttachment, holds it. */
const multiAttach: LocateRule = {
  name: 'multi-attach',
  locate(index, f) {
    const e = find(f, MULTI_ATTACH);
    if (!e) return undefined;
    const pv = MULTI_ATTACH.exec(e.message)?.[1] ?? '';
    const va = index.attachmentsForPv(pv).find((a) => a.spec?.nodeName && a.spec.nodeName !== f.node);
    const holder = va?.spec?.nodeName ?? undefined;
    const h = notReady(index, holder);
    const loc: Location = {
      layer: 'attach',
      actor: `the attach/detach controller${va ? ` (VolumeAttachment ${va.metadata?.name ?? '?'} of ${pv} names ${holder})` : ''}`,
      evidence: [
        line(e),
        va
          ? `VolumeAttachment ${va.metadata?.name ?? '?'}: ${pv} on ${holder}, attached=${va.status?.attached ? 'true' : 'false'}`
          : `no VolumeAttachment of ${pv} on another node is readable`,
        ...(h ? [describeHealth(h)] : []),
      ],
    };
    if (holder) loc.holder = holder;
    if (h) loc.holderHealth = h;
    return loc;
  },
};

/** An attach to the pod's own node that fails or waits: the VolumeAttachment's attachError, or "unattached volumes". */
const attachHere: LocateRule = {
  name: 'attach on the pod node',
  locate(index, f) {
    const failed = f.storage
      .flatMap((s) => (s.pv ? index.attachmentsForPv(s.pv) : []))
      .find((va) => va.spec?.nodeName === f.node && va.status?.attachError);
    const waiting = find(f, UNATTACHED) ?? f.events.find((e) => e.reason === 'FailedAttachVolume');
    if (!failed && !waiting) return undefined;
    return {
      layer: 'attach',
      actor: `the external-attacher of ${f.storage.find((s) => s.driver)?.driver ?? 'the driver'}, through the VolumeAttachment`,
      ...(f.node ? { holder: f.node } : {}),
      evidence: [
        ...(failed
          ? [
              `VolumeAttachment ${failed.metadata?.name ?? '?'} attachError: ${failed.status?.attachError?.message ?? ''}`,
            ]
          : []),
        ...(waiting ? [line(waiting)] : []),
      ],
    };
  },
};

/**
 * The drivers of a stuck pod's volumes that its node's CSINode does not list: the kubelet never registered their
 * node plugin there. None when CSINodes are unreadable or the node has no CSINode (its absence proves nothing), and
 * for pods stuck Terminating (their unmount has its own evidence).
 */
function missingFromCsiNode(index: ClusterIndex, f: StuckPodFinding): { driver: string; listed: string[] } | undefined {
  if (!f.node || f.kind !== 'stuck-creating' || !index.readable('csiNodes')) return undefined;
  const registered = index.driversOnNode(f.node);
  if (!registered) return undefined;
  const driver = f.storage.find((s) => s.driver && !registered.has(s.driver))?.driver;
  return driver ? { driver, listed: [...registered].sort() } : undefined;
}

/**
 * The node plugin is not registered with the kubelet on the pod's node: the kubelet says so, or the node's CSINode
 * lacks the driver of one of the pod's volumes. A registration problem of that node (rollout.ts decides whether it
 * follows a plugin revision).
 */
const notRegistered: LocateRule = {
  name: 'driver not registered',
  locate(index, f) {
    const e = find(f, NOT_REGISTERED);
    const missing = missingFromCsiNode(index, f);
    if (!e && !missing) return undefined;
    const driver = (e && NOT_REGISTERED.exec(e.message)?.[1]) ?? missing?.driver ?? 'the driver';
    const on = f.node ?? 'the node';
    return {
      layer: 'stage',
      actor: `the node plugin of ${driver} on ${on}, which is not registered with the kubelet (node-driver-registrar)`,
      ...(f.node ? { holder: f.node } : {}),
      unregistered: driver,
      evidence: [
        ...(e ? [line(e)] : []),
        ...(missing
          ? [
              `CSINode ${on} lists ${missing.listed.length > 0 ? missing.listed.join(', ') : 'no driver'}: ${missing.driver} is not registered there`,
            ]
          : []),
      ],
    };
  },
};

/** Causes decided by the detectors that are not a volume's: configuration, image, sandbox. */
const BY_CAUSE: Partial<Record<StuckPodFinding['cause'], { layer: Layer; actor: (node: string) => string }>> = {
  config: { layer: 'configuration', actor: (n) => `the kubelet on ${n}, waiting for a Secret or ConfigMap` },
  image: { layer: 'image', actor: (n) => `the kubelet on ${n}, pulling an image` },
  network: { layer: 'sandbox', actor: (n) => `the container runtime and CNI plugin on ${n}` },
};

/** Who owns a wait the pod's own settings cause (detect/pod-settings.ts), by its kind. */
const BY_SETTING: Record<NonNullable<StuckPodFinding['configWait']>['kind'], (node: string) => string> = {
  selinux: (n) =>
    `the pods' SELinux labels (securityContext.seLinuxOptions): the kubelet on ${n} mounts a volume with one label at a time`,
  fsgroup: (n) => `the pod's fsGroup: the kubelet on ${n} is changing the ownership of every file on the volume`,
};
/** The kubelet's words for such a wait: its SELinux conflict, or the ownership change in progress. */
const SETTING_EVENT = /conflicting SELinux labels of volume|^VolumePermissionChangeInProgress$/;

/** A wait the pod's own settings cause: configuration, held by no node, with whether it heals by itself. */
const podSetting: LocateRule = {
  name: 'pod setting',
  locate(_index, f) {
    const w = f.configWait;
    if (f.cause !== 'config' || !w) return undefined;
    const e = f.events.find((x) => SETTING_EVENT.test(x.message) || SETTING_EVENT.test(x.reason)) ?? f.events[0];
    return {
      layer: 'configuration',
      actor: BY_SETTING[w.kind](f.node ?? 'the node'),
      evidence: [
        ...(e ? [line(e)] : []),
        ...(w.otherPod
          ? [`the SELinux warning controller names ${w.otherPod}, on the same node, as the other user of the volume`]
          : []),
      ],
      outlook: settingOutlook(f),
    };
  },
};

const notVolume: LocateRule = {
  name: 'not a volume',
  locate(_index, f) {
    const c = BY_CAUSE[f.cause];
    if (!c) return undefined;
    const e = f.events[0];
    return {
      layer: c.layer,
      actor: c.actor(f.node ?? 'the node'),
      ...(c.layer === 'sandbox' && f.node ? { holder: f.node } : {}),
      evidence: e ? [line(e)] : [],
    };
  },
};

/** A mount or unmount on the pod's node: the step the kubelet's message names (MountDevice = stage, SetUp = publish). */
const onNode: LocateRule = {
  name: 'mount or unmount on the node',
  locate(_index, f) {
    if (f.cause !== 'storage') return undefined;
    const e = f.events[0];
    const msg = f.events.map((x) => x.message).join('\n');
    const layer: Layer =
      f.kind === 'stuck-terminating'
        ? /UnmountDevice/.test(msg)
          ? 'unstage'
          : 'unpublish'
        : /MountDevice/.test(msg)
          ? 'stage'
          : /SetUp/.test(msg)
            ? 'publish'
            : 'stage';
    return {
      layer,
      actor: `the kubelet and the node plugin on ${f.node ?? 'the node'}`,
      ...(f.node ? { holder: f.node } : {}),
      evidence: e
        ? [line(e)]
        : [
            `no event: the kubelet logs a failed ${f.kind === 'stuck-terminating' ? 'unmount' : 'mount'} to its own log only`,
          ],
    };
  },
};

/** The locating rules, in order: the node itself first (a dead kubelet explains everything on it). */
export const LOCATE_RULES: readonly LocateRule[] = [
  nodeDown,
  multiAttach,
  notRegistered,
  attachHere,
  podSetting,
  notVolume,
  onNode,
];

/**
 * Where a stuck pod is stuck: the first rule that applies, else 'unknown' with no holder; with what the driver's
 * health monitor says of its volumes, whatever the layer (evidence, not a rule: it names no step).
 */
export function locate(index: ClusterIndex, f: StuckPodFinding): Location {
  const l = LOCATE_RULES.reduce<Location | undefined>((found, r) => found ?? r.locate(index, f), undefined) ?? {
    layer: 'unknown',
    actor: 'not known: no event says which step failed',
    evidence: [],
  };
  const health = volumeHealth(index, f);
  return health.length > 0 ? { ...l, volumeHealth: health } : l;
}
