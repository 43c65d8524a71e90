// Work keys: what a watch event makes dirty. Pure mapping from a changed object to the keys whose evaluation it
// can change, so the pipeline's work per event stays O(1).
import type { KindKey } from '../domain/kinds.js';
import type { KubeEvent, KubeObject } from '../domain/objects.js';
import { controllerOf, nsKey } from '../domain/refs.js';

/** Prefix of a pod key: "pod:namespace/name". */
export const POD = 'pod:';
/** Prefix of a CronJob key: "cronjob:namespace/name". */
export const CRONJOB = 'cronjob:';
/** A change that can alter correlation but no single finding (plugin DaemonSets, revisions, nodes). */
export const CORRELATE = 'correlate';

/** Appends to `out` the work keys a change to `obj` of `kind` makes dirty. */
export function dirtyKeys(kind: KindKey, obj: KubeObject, out: string[]): void {
  const ns = obj.metadata?.namespace;
  switch (kind) {
    case 'pods': {
      out.push(POD + nsKey(ns, obj.metadata?.name));
      // A DaemonSet pod may be a CSI node plugin: its revision or age feeds the verdict.
      if (controllerOf(obj)?.kind === 'DaemonSet') out.push(CORRELATE);
      break;
    }
    case 'events': {
      const io = (obj as KubeEvent).involvedObject;
      if (io?.kind === 'Pod' && io.name) out.push(POD + nsKey(io.namespace ?? ns, io.name));
      break;
    }
    case 'jobs': {
      const owner = controllerOf(obj);
      if (owner?.kind === 'CronJob' && owner.name) out.push(CRONJOB + nsKey(ns, owner.name));
      break;
    }
    case 'cronJobs':
      out.push(CRONJOB + nsKey(ns, obj.metadata?.name));
      break;
    case 'daemonSets':
    case 'controllerRevisions':
    case 'nodes':
    case 'csiNodes':
      out.push(CORRELATE);
      break;
    default:
      // Claims, volumes, attachments, drivers: read when a pod is evaluated; the periodic re-evaluation of
      // candidates picks up their changes.
      break;
  }
}
