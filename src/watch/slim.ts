// The watch path's projection of pods, smaller than src/kube's: at 150k pods every field kept costs tens of
// megabytes, and `rwx serve` keeps the cache for its lifetime. Pods keep what the detectors and the correlator
// read (status, volumes, owner, node, labels, container names and volume mounts); ordinary pods drop their
// annotations and container args/command/image/securityContext, which only node plugin pods (DaemonSet-owned,
// whose templates the revision diff reads) need; Running pods (the bulk of a cluster) keep even less.
// One pass over the API object, with the shape chosen first: projecting whole and trimming afterwards made a
// second copy of most of each pod (about a fifth of the restart's work at 150k pods).
import type { KindKey } from '../domain/kinds.js';
import type { KubeObject, Pod } from '../domain/objects.js';
import { controllerOf } from '../domain/refs.js';
import { CONDITION, CONTAINER, META, POD, pick, project, projectWith, type Shape } from '../kube/project.js';
import type { Projector } from './watcher.js';

/** `shape` without the fields in `drop`. */
function omit<T extends Record<string, Shape>>(shape: T, ...drop: string[]): Record<string, Shape> {
  return Object.fromEntries(Object.entries(shape).filter(([k]) => !drop.includes(k)));
}

const SLIM_META = omit(META, 'annotations');
const SLIM_CONTAINER: Shape = { name: true, volumeMounts: CONTAINER.volumeMounts };

/** A pod that can be a detector's subject (not Running, or being deleted): no annotations, pod IP or images. */
const SUBJECT: Shape = {
  ...POD,
  metadata: SLIM_META,
  spec: { ...POD.spec, containers: SLIM_CONTAINER, initContainers: SLIM_CONTAINER },
  status: omit(POD.status, 'podIP'),
};

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A Running pod's container status: its name and, when running, when it started (null when not said). */
function runningContainer(c: unknown): unknown {
  const cs = c as { name?: unknown; state?: { running?: { startedAt?: unknown } } } | null;
  const out: { name?: unknown; state?: unknown } = {};
  if (cs?.name !== undefined) out.name = pick(cs.name, true);
  const running = cs?.state?.running;
  if (running) out.state = { running: { startedAt: pick(running.startedAt, true) ?? null } };
  return out;
}

const RUNNING_STATUS: Shape = { phase: true, reason: true, startTime: true };

/** A Running pod's status: phase and times, its Ready condition, and its containers' start times. */
function runningStatus(v: unknown): unknown {
  const out = pick(v, RUNNING_STATUS) as Record<string, unknown>;
  const s = v as { conditions?: unknown; containerStatuses?: unknown };
  out.conditions = asList(s.conditions)
    .filter((c) => (c as { type?: unknown } | null)?.type === 'Ready')
    .map((c) => pick(c, CONDITION));
  out.containerStatuses = asList(s.containerStatuses).map(runningContainer);
  return out;
}

/**
 * A Running pod not being deleted: never a detector's subject (a change that could make it one arrives as a new
 * event, projected again), only read by correlation and drain advice for its node, volumes, owner and when its
 * containers started.
 */
const RUNNING: Shape = {
  ...POD,
  metadata: SLIM_META,
  spec: omit(POD.spec, 'containers', 'initContainers'),
  status: runningStatus,
};

/** The watch path's projection of one pod (see the file comment); node plugin pods are projected whole. */
export function projectPod(obj: unknown): Pod {
  const raw = obj as Pod | null | undefined;
  if (Array.isArray(raw?.metadata?.ownerReferences) && controllerOf(raw as Pod)?.kind === 'DaemonSet')
    return project('pods', raw);
  const running = raw?.status?.phase === 'Running' && !raw.metadata?.deletionTimestamp;
  return projectWith(running ? RUNNING : SUBJECT, obj) as Pod;
}

/** `project` for every kind but pods, which get projectPod. */
export function serveProjector(project: Projector): Projector {
  return (kind: KindKey, obj: KubeObject) => (kind === 'pods' ? projectPod(obj) : project(kind, obj));
}
