// The simulated cluster: the store filled from a scenario, the timeline on a sim-time scheduler, writes with
// API-server semantics (create, graceful delete), and the controllers and kubelet that react to changes.
import { nsKey, storeKey, type KubeObject, type Rec } from './objects.js';
import type { Scenario, TimelineStep, KubeletModel } from './scenario.js';
import { ObjectStore } from './store.js';
import { Scheduler } from './scheduler.js';
import { materialize, resolveRefs, type Lookup } from './defaults.js';
import { Resources, resourceKey, type ResourceInfo } from './resources.js';
import { reconcile } from './controllers.js';
import { kubeletSync, provisionClaim, forgetPod } from './kubelet.js';
import { setPath } from './paths.js';
import { formatTime, resolveTimes } from './times.js';
import { podStatus, stateOfPhase } from './pod-status.js';
import { ApiError, notFound } from './status.js';
import { stableSuffix } from './template.js';
import { storeBulk } from './bulk.js';

/** Cluster state plus the machinery that changes it. One per simulator. */
export class SimCluster {
  readonly store = new ObjectStore();
  readonly scheduler = new Scheduler();
  /** What this simulator serves: the built-in table plus the scenario's custom resources. */
  readonly resources: Resources;
  kubelet: KubeletModel;
  /** uids of pods created through the API: the kubelet drives these from ContainerCreating to completion. */
  readonly createdPods = new Set<string>();
  private writes = 0;

  constructor(
    readonly scenario: Scenario,
    readonly startMs: number,
  ) {
    this.kubelet = { ...scenario.kubelet };
    this.resources = new Resources(scenario.resources);
  }

  /** Looks up a stored object by kind. */
  readonly lookup: Lookup = (kind, namespace, name) => {
    const res = this.resources.ofKind(kind);
    if (!res) return undefined;
    return this.store.get(resourceKey(res), nsKey(res.namespaced ? namespace : undefined, name));
  };

  /** Bulk-loaded pods nothing has changed since: the kubelet leaves them as they are (bulk.ts). */
  readonly atRest = new WeakSet<KubeObject>();

  /**
   * Loads `bulk` (objects in served form, stored as they are: bulk.ts), then the scenario's objects, plus a Namespace
   * for every namespace used, and schedules the timeline.
   */
  load(bulk: readonly KubeObject[] = []): void {
    this.addAll(this.scenario.objects, this.startMs, 'init', storeBulk(this, bulk));
    this.store.compact();
    for (const step of this.scenario.timeline) {
      this.scheduler.schedule(this.startMs + step.atMs, (now) => this.applyStep(step, now));
    }
    this.settle(this.startMs);
  }

  /** Materializes and stores objects as one batch, so references between them resolve in either order. */
  private addAll(objects: KubeObject[], now: number, seed: string, used = new Set<string>()): void {
    const ready = objects.map((o) => materialize(o, now, `${this.scenario.name}|${seed}`, this.resources));
    const namespaces = new Set([...used, ...ready.map((o) => o.metadata?.namespace).filter((n): n is string => !!n)]);
    for (const ns of namespaces) {
      if (
        !this.lookup('Namespace', undefined, ns) &&
        !ready.some((o) => o.kind === 'Namespace' && o.metadata?.name === ns)
      ) {
        ready.unshift(
          materialize(
            {
              kind: 'Namespace',
              metadata: { name: ns, creationTimestamp: formatTime(this.startMs - 90 * 86_400_000) },
            },
            now,
            this.scenario.name,
            this.resources,
          ),
        );
      }
    }
    const pending = new Map(ready.map((o) => [`${o.kind}|${o.metadata?.namespace ?? ''}|${o.metadata?.name}`, o]));
    const lookup: Lookup = (kind, ns, name) =>
      pending.get(`${kind}|${this.resources.ofKind(kind)?.namespaced ? (ns ?? '') : ''}|${name}`) ??
      this.lookup(kind, ns, name);
    // Owners first (ControllerRevisions before the pods that copy their template), then everything else.
    const order = (o: KubeObject) => (o.kind === 'Pod' ? 2 : o.kind === 'Event' ? 3 : 1);
    for (const o of [...ready].sort((a, b) => order(a) - order(b))) {
      resolveRefs(o, lookup, this.resources);
      const res = this.resources.ofKind(o.kind);
      if (res) this.store.put(resourceKey(res), o);
    }
  }

  /** Applies one timeline step at sim time `now`. */
  applyStep(step: TimelineStep, now: number): void {
    if (step.kubelet) this.kubelet = { ...this.kubelet, ...step.kubelet };
    if (step.add?.length) this.addAll(step.add, now, `step@${step.atMs}`);
    for (const s of step.set ?? []) this.setFields(s.kind, s.namespace, s.name, s.fields, now);
    for (const d of step.delete ?? []) {
      const res = this.resources.ofKind(d.kind);
      if (res) this.remove(res, nsKey(res.namespaced ? (d.namespace ?? 'default') : undefined, d.name), now);
    }
    for (const b of step.bumpEvent ?? []) this.bumpEvent(b.namespace, b.name, b.by ?? 1, now);
    if (step.compact) this.store.compact();
    this.settle(now);
  }

  private setFields(kind: string, namespace: string | undefined, name: string, fields: Rec, now: number): void {
    const res = this.resources.ofKind(kind);
    const cur = this.lookup(kind, namespace ?? 'default', name);
    if (!res || !cur) return;
    const obj = structuredClone(cur) as Rec;
    for (const [path, raw] of Object.entries(fields)) {
      const holder: Rec = { [path.split('.').pop() ?? path]: structuredClone(raw) };
      resolveTimes(holder, now);
      setPath(obj, path, Object.values(holder)[0]);
    }
    const touched = Object.keys(fields);
    if (kind === 'Pod' && touched.includes('status.phase') && !touched.some((p) => p.startsWith('status.c'))) {
      // A phase change rewrites what the kubelet would: conditions and container states.
      const pod = obj as KubeObject;
      const phase = String((obj.status as Rec).phase);
      const start = Date.parse(String((cur.status as Rec | undefined)?.startTime ?? '')) || now;
      obj.status = podStatus(pod, stateOfPhase(pod, phase), now, start);
    }
    if (kind === 'Event' && touched.includes('count') && !touched.includes('lastTimestamp'))
      obj.lastTimestamp = formatTime(now);
    this.store.put(resourceKey(res), obj as KubeObject);
  }

  /** Raises an Event's count by `by` and stamps lastTimestamp. */
  bumpEvent(namespace: string, name: string, by: number, now: number): void {
    const ev = this.lookup('Event', namespace, name);
    if (!ev) return;
    this.store.put('/events', { ...ev, count: Number(ev.count ?? 1) + by, lastTimestamp: formatTime(now) });
  }

  /** Creates an object from a client's body (POST); throws ApiError for conflicts and invalid bodies. */
  create(res: ResourceInfo, namespace: string | undefined, body: Rec, now: number): KubeObject {
    const meta = (body.metadata ?? {}) as Rec;
    if (body.kind !== undefined && body.kind !== res.kind) {
      throw new ApiError(400, 'BadRequest', `the kind of the body (${String(body.kind)}) does not match ${res.kind}`);
    }
    if (res.namespaced && meta.namespace !== undefined && meta.namespace !== namespace) {
      throw new ApiError(
        400,
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    this.writes++;
    const name =
      meta.name ??
      (meta.generateName ? `${String(meta.generateName)}${stableSuffix(`${this.writes}|${now}`)}` : undefined);
    if (typeof name !== 'string' || name === '') {
      throw new ApiError(
        422,
        'Invalid',
        `${res.kind} "" is invalid: metadata.name: Required value: name or generateName is required`,
      );
    }
    const key = nsKey(res.namespaced ? namespace : undefined, name);
    if (this.store.get(resourceKey(res), key)) {
      throw new ApiError(409, 'AlreadyExists', `${res.resource} "${name}" already exists`, {
        name,
        kind: res.resource,
      });
    }
    const input = {
      ...body,
      kind: res.kind,
      metadata: {
        ...meta,
        name,
        namespace: res.namespaced ? namespace : undefined,
        creationTimestamp: formatTime(now),
        uid: undefined,
        resourceVersion: undefined,
      },
    };
    delete (input.metadata as Rec).namespace;
    if (res.namespaced) (input.metadata as Rec).namespace = namespace;
    if (res.kind === 'Pod') delete (input as Rec).status;
    const obj = materialize(input as KubeObject, now, `${this.scenario.name}|api|${this.writes}`, this.resources);
    if (res.kind === 'Pod') {
      (obj as Rec).status = { phase: 'Pending' };
    }
    resolveRefs(obj, this.lookup, this.resources);
    const stored = this.store.put(resourceKey(res), obj);
    if (res.kind === 'Pod') this.createdPods.add(stored.metadata?.uid ?? '');
    if (res.kind === 'PersistentVolumeClaim') provisionClaim(this, stored, now);
    this.settle(now);
    return this.store.get(resourceKey(res), key) ?? stored;
  }

  /** Deletes with API-server semantics: finalizers keep the object Terminating, otherwise it goes. */
  remove(res: ResourceInfo, key: string, now: number): KubeObject {
    const rk = resourceKey(res);
    const cur = this.store.get(rk, key);
    if (!cur) throw notFound(res.resource, res.group, key.split('/').pop() ?? key);
    const terminating = {
      ...cur,
      metadata: {
        ...cur.metadata,
        deletionTimestamp: cur.metadata?.deletionTimestamp ?? formatTime(now),
        deletionGracePeriodSeconds: cur.metadata?.deletionGracePeriodSeconds ?? (res.kind === 'Pod' ? 30 : 0),
      },
    };
    let out: KubeObject;
    if ((cur.metadata?.finalizers ?? []).length > 0) {
      out = cur.metadata?.deletionTimestamp ? cur : this.store.put(rk, terminating);
    } else {
      // Pods on a node are first marked (the kubelet sees deletionTimestamp), then removed once stopped.
      if (
        res.kind === 'Pod' &&
        (cur as Rec).spec &&
        ((cur as Rec).spec as Rec).nodeName &&
        !cur.metadata?.deletionTimestamp
      ) {
        this.store.put(rk, terminating);
      }
      out = this.store.remove(rk, key) ?? terminating;
      if (res.kind === 'Pod') forgetPod(this, out);
      if (res.kind === 'PersistentVolumeClaim') this.releaseVolume(out, now);
    }
    this.settle(now);
    return out;
  }

  /** A deleted claim's dynamically provisioned volume goes with it (reclaim policy Delete). */
  private releaseVolume(pvc: KubeObject, now: number): void {
    const pvName = ((pvc as Rec).spec as Rec | undefined)?.volumeName;
    const pv = typeof pvName === 'string' ? this.lookup('PersistentVolume', undefined, pvName) : undefined;
    const res = this.resources.ofKind('PersistentVolume');
    if (!pv || !res || ((pv as Rec).spec as Rec).persistentVolumeReclaimPolicy !== 'Delete') return;
    if (!pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by']) return;
    this.remove(res, storeKey(pv), now);
  }

  /** Runs controllers and the kubelet after a batch of changes. */
  settle(now: number): void {
    reconcile(this.store);
    kubeletSync(this, now);
    reconcile(this.store);
  }

  /** Runs every action due at or before `now`, each at its own time; returns how many ran. */
  runDue(now: number, onEach?: (at: number) => void): number {
    let n = 0;
    for (let d = this.scheduler.take(now); d; d = this.scheduler.take(now)) {
      onEach?.(d.at);
      d.run(d.at);
      n++;
    }
    return n;
  }
}
