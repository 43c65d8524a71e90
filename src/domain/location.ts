// Where a stuck pod is stuck: the layer of the CSI call sequence (or around it) that owns the problem, the actor that
// owns that layer, and the node that holds the fault, which is not always the node the pod waits on (a Multi-Attach
// on node B is held by the node the VolumeAttachment names). Verdicts, next steps, drain advice and triage follow
// from it (src/correlate/locate.ts decides it; docs/failure-modes.md explains each layer to a user).

/**
 * The layers, in the order a pod meets them: scheduling, provision, attach, stage, publish (and back: unpublish,
 * unstage, detach), and around them: configuration (Secret/ConfigMap volumes, SELinux, fsGroup), image, sandbox
 * (CNI, runtime), node (the node itself: its kubelet is not posting status). 'unknown': no evidence says which.
 */
export type Layer =
  | 'scheduling'
  | 'provision'
  | 'attach'
  | 'stage'
  | 'publish'
  | 'unpublish'
  | 'unstage'
  | 'detach'
  | 'configuration'
  | 'image'
  | 'sandbox'
  | 'node'
  | 'unknown';

/** Every layer, in the order a pod meets them. */
export const LAYERS: readonly Layer[] = [
  'scheduling',
  'provision',
  'attach',
  'stage',
  'publish',
  'unpublish',
  'unstage',
  'detach',
  'configuration',
  'image',
  'sandbox',
  'node',
  'unknown',
];

/** The health of a node as its Ready condition and taints say it. */
export interface NodeHealth {
  node: string;
  /** The Ready condition's status: 'True', 'False' or 'Unknown' (the kubelet stopped posting status). */
  ready: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  /** When Ready last changed (RFC 3339). */
  since?: string;
  /** The node.kubernetes.io taints that say it: unreachable, not-ready, out-of-service. */
  taints: string[];
}

/** Where one stuck pod is stuck, and who and which node hold it. */
export interface Location {
  layer: Layer;
  /** Who owns the layer, e.g. "the attach/detach controller (VolumeAttachment csi-3f81)", "the kubelet on node-a". */
  actor: string;
  /** The node that holds the fault (the VolumeAttachment's node, the NotReady node); absent when no node does. */
  holder?: string;
  /** The evidence the location was read from, one line each (an event, a condition, an object's status). */
  evidence: string[];
  /** For layer 'node' and faults held by a node that is not Ready: that node's health. */
  holderHealth?: NodeHealth;
  /** The CSI driver whose node plugin is not registered on the holder node (the kubelet's words or its CSINode). */
  unregistered?: string;
  /** What the driver's health monitor says of the volumes (volume-health.ts): standing abnormal events, one a line. */
  volumeHealth?: string[];
  /**
   * For a pod stuck at unpublish: what holds its volume mount on the node, as the node's agent saw it, or why that
   * is not visible from the API (correlate/unmount-holds.ts, set by the evaluation).
   */
  unmountHolds?: UnmountHold[];
  /** Whether the fault heals without anyone acting, and when (correlate/outlook.ts); absent when nothing is said. */
  outlook?: string;
}

/** One line about what holds a pod's volume mount busy (Location.unmountHolds). */
export interface UnmountHold {
  /** The pod ("namespace/name"). */
  pod: string;
  node: string;
  /** The sentence, plain text holding strings from the node (process names, paths): escape it where it goes. */
  text: string;
  /** True when it names a holder (a process, a mount namespace); false when it says what is not known or seen. */
  held: boolean;
}
