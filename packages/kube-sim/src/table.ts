// Server-side printing: the meta.k8s.io/v1 Table kubectl asks for when it prints columns (`kubectl get pods`),
// with the API server's columns for the kinds people look at during an incident and NAME/AGE for the rest.
import { humanDuration } from './duration.js';
import { rec, type KubeObject, type Pod, type Rec } from './objects.js';

interface Column {
  name: string;
  priority?: number;
  cell: (o: KubeObject, now: number) => string | number;
}

function age(ts: unknown, now: number): string {
  const ms = Date.parse(String(ts ?? ''));
  return Number.isNaN(ms) ? '<unknown>' : humanDuration(now - ms);
}

function podStatus(p: Pod): string {
  if (p.metadata?.deletionTimestamp) return 'Terminating';
  for (const c of p.status?.containerStatuses ?? []) {
    if (c.state?.waiting?.reason) return c.state.waiting.reason;
    if (c.state?.terminated?.reason && p.status?.phase !== 'Running') return c.state.terminated.reason;
  }
  return p.status?.reason ?? p.status?.phase ?? 'Unknown';
}

const NAME: Column = { name: 'Name', cell: (o) => o.metadata?.name ?? '' };
const AGE: Column = { name: 'Age', cell: (o, now) => age(o.metadata?.creationTimestamp, now) };

const COLUMNS: Record<string, Column[]> = {
  pods: [
    NAME,
    {
      name: 'Ready',
      cell: (o) => {
        const cs = (o as Pod).status?.containerStatuses ?? [];
        return `${cs.filter((c) => c.ready).length}/${((o as Pod).spec?.containers ?? []).length}`;
      },
    },
    { name: 'Status', cell: (o) => podStatus(o as Pod) },
    {
      name: 'Restarts',
      cell: (o) => ((o as Pod).status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0),
    },
    AGE,
    { name: 'IP', priority: 1, cell: (o) => String(rec(o.status).podIP ?? '<none>') },
    { name: 'Node', priority: 1, cell: (o) => (o as Pod).spec?.nodeName ?? '<none>' },
    { name: 'Nominated Node', priority: 1, cell: () => '<none>' },
    { name: 'Readiness Gates', priority: 1, cell: () => '<none>' },
  ],
  persistentvolumeclaims: [
    NAME,
    { name: 'Status', cell: (o) => String(rec(o.status).phase ?? '') },
    { name: 'Volume', cell: (o) => String(rec(o.spec).volumeName ?? '') },
    { name: 'Capacity', cell: (o) => String(rec(rec(o.status).capacity).storage ?? '') },
    {
      name: 'Access Modes',
      cell: (o) =>
        ((rec(o.status).accessModes as string[] | undefined) ?? []).map((m) => m.replace(/[a-z]/g, '')).join(','),
    },
    { name: 'StorageClass', cell: (o) => String(rec(o.spec).storageClassName ?? '<unset>') },
    AGE,
  ],
  daemonsets: [
    NAME,
    ...(
      [
        'desiredNumberScheduled',
        'currentNumberScheduled',
        'numberReady',
        'updatedNumberScheduled',
        'numberAvailable',
      ] as const
    ).map((f, i) => ({
      name: ['Desired', 'Current', 'Ready', 'Up-to-date', 'Available'][i] ?? f,
      cell: (o: KubeObject) => Number(rec(o.status)[f] ?? 0),
    })),
    AGE,
  ],
  nodes: [
    NAME,
    {
      name: 'Status',
      cell: (o) => {
        const ready =
          ((rec(o.status).conditions as Rec[] | undefined) ?? []).find((c) => c.type === 'Ready')?.status === 'True';
        return `${ready ? 'Ready' : 'NotReady'}${rec(o.spec).unschedulable ? ',SchedulingDisabled' : ''}`;
      },
    },
    { name: 'Roles', cell: () => '<none>' },
    AGE,
    { name: 'Version', cell: (o) => String(rec(rec(o.status).nodeInfo).kubeletVersion ?? '') },
  ],
  events: [
    { name: 'Last Seen', cell: (o, now) => age(o.lastTimestamp ?? o.eventTime, now) },
    { name: 'Type', cell: (o) => String(o.type ?? '') },
    { name: 'Reason', cell: (o) => String(o.reason ?? '') },
    {
      name: 'Object',
      cell: (o) =>
        `${String(rec(o.involvedObject).kind ?? '').toLowerCase()}/${String(rec(o.involvedObject).name ?? '')}`,
    },
    { name: 'Message', cell: (o) => String(o.message ?? '') },
  ],
  volumeattachments: [
    NAME,
    { name: 'Attacher', cell: (o) => String(rec(o.spec).attacher ?? '') },
    { name: 'PV', cell: (o) => String(rec(rec(o.spec).source).persistentVolumeName ?? '') },
    { name: 'Node', cell: (o) => String(rec(o.spec).nodeName ?? '') },
    { name: 'Attached', cell: (o) => String(rec(o.status).attached ?? false) },
    AGE,
  ],
};

/** Whether an Accept header asks for server-side printing. */
export function wantsTable(accept: string | undefined): boolean {
  return /as=Table/.test(accept ?? '');
}

/** A Table of `objects` for `resource`, ages computed at sim time `now`. */
export function toTable(resource: string, objects: KubeObject[], now: number, listMeta: Rec = {}): Rec {
  const cols = COLUMNS[resource] ?? [NAME, AGE];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: cols.map((c) => ({
      name: c.name,
      type: 'string',
      format: c.name === 'Name' ? 'name' : '',
      description: c.name,
      priority: c.priority ?? 0,
    })),
    rows: objects.map((o) => ({
      cells: cols.map((c) => c.cell(o, now)),
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
