// The watch path's extra trim on top of src/kube's projection: at 150k pods every field kept costs tens of
// megabytes, and `rwx serve` keeps the cache for its lifetime. Pods keep what the detectors and the correlator
// read (status, volumes, owner, node, labels, container names and volume mounts); ordinary pods drop their
// annotations and container args/command/image/securityContext, which only node plugin pods (DaemonSet-owned,
// whose templates the revision diff reads) need; Running pods (the bulk of a cluster) keep even less.
import type { KindKey } from '../domain/kinds.js';
import type { Container, KubeObject, Pod } from '../domain/objects.js';
import { controllerOf } from '../domain/refs.js';
import type { Projector } from './watcher.js';

function slimContainer(c: Container): Container {
  const out: Container = {};
  if (c.name !== undefined) out.name = c.name;
  if (c.volumeMounts !== undefined) out.volumeMounts = c.volumeMounts;
  return out;
}

/**
 * A copy of `o` without `drop` (key order kept). Used instead of `delete`, which turns an object into a slow,
 * larger dictionary-mode object: at 150k cached pods that costs memory and index/detector time.
 */
function without<T extends object>(o: T, drop: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k in o) if (Object.hasOwn(o, k) && !drop.includes(k)) out[k] = (o as Record<string, unknown>)[k];
  return out as T;
}
const ANNOTATIONS = ['annotations'];
const CONTAINERS = ['containers', 'initContainers'];
// A pod's IP is kept only for DaemonSet pods (the node agent's, which the bot fetches reports from).
const INIT_STATUSES = ['initContainerStatuses', 'podIP'];
const POD_IP = ['podIP'];

/**
 * Trims a freshly projected pod in place (it is not shared yet: project() returns a new copy) and returns it;
 * node plugin pods are left whole. See the file comment.
 */
export function slimPod(pod: Pod): Pod {
  if (controllerOf(pod)?.kind === 'DaemonSet') return pod;
  if (pod.metadata && 'annotations' in pod.metadata) pod.metadata = without(pod.metadata, ANNOTATIONS);
  const status = pod.status;
  if (status?.phase === 'Running' && !pod.metadata?.deletionTimestamp) {
    // Never a detector's subject (a change that could make it one arrives as a new, fully projected event):
    // only read by correlation and drain advice for its node, volumes, owner and when its containers started.
    if (pod.spec) pod.spec = without(pod.spec, CONTAINERS);
    status.conditions = (status.conditions ?? []).filter((c) => c?.type === 'Ready');
    status.containerStatuses = (status.containerStatuses ?? []).map((c) => ({
      ...(c?.name !== undefined ? { name: c.name } : {}),
      ...(c?.state?.running ? { state: { running: { startedAt: c.state.running.startedAt ?? null } } } : {}),
    }));
    if ('initContainerStatuses' in status || 'podIP' in status) pod.status = without(status, INIT_STATUSES);
    return pod;
  }
  if (pod.status && 'podIP' in pod.status) pod.status = without(pod.status, POD_IP);
  const spec = pod.spec;
  if (spec?.containers) spec.containers = spec.containers.map(slimContainer);
  if (spec?.initContainers) spec.initContainers = spec.initContainers.map(slimContainer);
  return pod;
}

/** `project` followed by the watch path's trim. */
export function serveProjector(project: Projector): Projector {
  return (kind: KindKey, obj: KubeObject) => {
    const p = project(kind, obj);
    return kind === 'pods' ? slimPod(p as Pod) : p;
  };
}
