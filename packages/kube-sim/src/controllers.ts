// The few controllers whose status a reader checks: DaemonSet (template follows its newest ControllerRevision;
// desired/updated/ready counts), ReplicaSet/Deployment/StatefulSet ready counts, Job completion and the CronJob's
// lastSuccessfulTime. Each writes only when something changed, so a quiet cluster produces no watch events.
import { isDeepStrictEqual } from 'node:util';
import { controllerOf, rec, type ControllerRevision, type KubeObject, type Pod, type Rec } from './objects.js';
import type { ObjectStore } from './store.js';
import { formatTime } from './times.js';

function update(
  store: ObjectStore,
  res: string,
  obj: KubeObject,
  path: 'spec' | 'status',
  next: unknown,
  bumpGeneration = false,
): void {
  if (isDeepStrictEqual((obj as Rec)[path], next)) return;
  const copy = { ...obj, [path]: next } as KubeObject;
  if (bumpGeneration) copy.metadata = { ...copy.metadata, generation: generation(obj) + 1 } as KubeObject['metadata'];
  store.put(res, copy);
}

function generation(o: KubeObject): number {
  return Number(rec(o.metadata).generation ?? 1);
}

function ready(p: Pod): boolean {
  return (
    p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

function podsByOwner(store: ObjectStore): Map<string, Pod[]> {
  const m = new Map<string, Pod[]>();
  for (const p of store.list('/pods') as Pod[]) {
    const uid = controllerOf(p)?.uid;
    if (!uid || p.metadata?.deletionTimestamp) continue;
    const list = m.get(uid) ?? [];
    list.push(p);
    m.set(uid, list);
  }
  return m;
}

function daemonSets(store: ObjectStore, owned: Map<string, Pod[]>): void {
  const nodes = store.list('/nodes').length;
  const revisions = store.list('apps/controllerrevisions') as ControllerRevision[];
  for (const ds of store.list('apps/daemonsets')) {
    const uid = ds.metadata?.uid ?? '';
    const mine = revisions.filter((r) => controllerOf(r)?.uid === uid);
    const latest = mine.reduce<ControllerRevision | undefined>(
      (a, r) => ((r.revision ?? 0) > (a?.revision ?? -1) ? r : a),
      undefined,
    );
    const template = latest?.data?.spec?.template;
    // The DaemonSet's template follows its newest revision, so a rollback is "renumber revision 1 to 3".
    if (template) {
      const { $patch: _patch, ...plain } = template as Rec;
      // Filling an omitted template is not a spec change; replacing one is (generation moves, as on a rollback).
      update(
        store,
        'apps/daemonsets',
        ds,
        'spec',
        { ...rec(ds.spec), template: structuredClone(plain) },
        rec(ds.spec).template !== undefined,
      );
    }
    const cur = store.get('apps/daemonsets', `${ds.metadata?.namespace}/${ds.metadata?.name}`) ?? ds;
    const hash = latest?.metadata?.labels?.['controller-revision-hash'];
    const pods = owned.get(uid) ?? [];
    const rd = pods.filter(ready).length;
    const updated = pods.filter(
      (p) => hash !== undefined && p.metadata?.labels?.['controller-revision-hash'] === hash,
    ).length;
    update(store, 'apps/daemonsets', cur, 'status', {
      currentNumberScheduled: pods.length,
      desiredNumberScheduled: nodes,
      numberAvailable: rd,
      numberMisscheduled: 0,
      numberReady: rd,
      ...(rd < nodes ? { numberUnavailable: nodes - rd } : {}),
      observedGeneration: generation(cur),
      updatedNumberScheduled: updated,
    });
  }
}

function replicaCounts(store: ObjectStore, res: string, owned: Map<string, Pod[]>): void {
  for (const o of store.list(res)) {
    const pods = owned.get(o.metadata?.uid ?? '') ?? [];
    const rd = pods.filter(ready).length;
    const st: Rec = { ...rec(o.status), observedGeneration: generation(o), replicas: pods.length };
    st.readyReplicas = rd;
    st.availableReplicas = rd;
    if (res === 'apps/statefulsets') st.currentReplicas = pods.length;
    if (rd === 0) {
      delete st.readyReplicas;
      delete st.availableReplicas;
    }
    update(store, res, o, 'status', st);
  }
}

function deployments(store: ObjectStore): void {
  const byOwner = new Map<string, Rec>();
  for (const rs of store.list('apps/replicasets')) {
    const uid = controllerOf(rs)?.uid;
    if (uid) byOwner.set(uid, rec(rs.status));
  }
  for (const d of store.list('apps/deployments')) {
    const rs = byOwner.get(d.metadata?.uid ?? '');
    if (!rs) continue;
    const want = Number(rec(d.spec).replicas ?? 1);
    const rd = Number(rs.readyReplicas ?? 0);
    const st: Rec = {
      ...rec(d.status),
      observedGeneration: generation(d),
      replicas: rs.replicas ?? 0,
      updatedReplicas: rs.replicas ?? 0,
      readyReplicas: rd,
      availableReplicas: rd,
      unavailableReplicas: Math.max(0, want - rd),
    };
    if (rd === 0) {
      delete st.readyReplicas;
      delete st.availableReplicas;
    }
    if (st.unavailableReplicas === 0) delete st.unavailableReplicas;
    update(store, 'apps/deployments', d, 'status', st);
  }
}

function jobs(store: ObjectStore, owned: Map<string, Pod[]>): void {
  for (const job of store.list('batch/jobs')) {
    const st = rec(job.status);
    const pods = owned.get(job.metadata?.uid ?? '') ?? [];
    const done = pods.find((p) => p.status?.phase === 'Succeeded');
    if (!done || st.completionTime) continue;
    const finished = rec(rec(done.status?.containerStatuses?.[0]?.state).terminated).finishedAt as string | undefined;
    const at = finished ?? formatTime(Date.now());
    const cond = (type: string) => ({ lastProbeTime: at, lastTransitionTime: at, status: 'True', type });
    const next: Rec = {
      ...st,
      completionTime: at,
      conditions: [cond('SuccessCriteriaMet'), cond('Complete')],
      ready: 0,
      succeeded: 1,
      terminating: 0,
      uncountedTerminatedPods: {},
    };
    delete next.active;
    update(store, 'batch/jobs', job, 'status', next);
    const cj = controllerOf(job);
    if (cj?.kind !== 'CronJob') continue;
    const cron = store.get('batch/cronjobs', `${job.metadata?.namespace}/${cj.name}`);
    if (!cron) continue;
    const active = ((rec(cron.status).active as Rec[] | undefined) ?? []).filter(
      (a) => a.uid !== job.metadata?.uid && a.name !== job.metadata?.name,
    );
    const cst: Rec = { ...rec(cron.status), lastSuccessfulTime: at };
    if (active.length) cst.active = active;
    else delete cst.active;
    update(store, 'batch/cronjobs', cron, 'status', cst);
  }
}

/** Brings controller-owned status (and DaemonSet templates) in line with the stored objects. */
export function reconcile(store: ObjectStore): void {
  let owned = podsByOwner(store);
  daemonSets(store, owned);
  jobs(store, owned);
  owned = podsByOwner(store);
  replicaCounts(store, 'apps/replicasets', owned);
  replicaCounts(store, 'apps/statefulsets', owned);
  deployments(store);
}
