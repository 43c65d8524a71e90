// Projection: what is kept of an object on the way in. The high-volume kinds (pods, events, claims, volumes,
// attachments) keep only the fields in src/domain/objects.ts, so a 150k-pod cluster stays small in memory; the
// rest keep everything except managedFields and the last-applied annotation. Dates (client-node's typed objects)
// become RFC 3339 strings, so live, snapshot and simulator objects have the same JSON shape.
import type { KindKey } from '../domain/kinds.js';
import type { ObjectsByKind } from '../domain/snapshot.js';
import { IN_TREE_FIELDS } from '../detect/volume-source.js';

/**
 * A field whitelist: `true` keeps the value whole; an object keeps only its listed fields (per element for arrays);
 * a function projects the value itself (it is called with whatever the input holds there, never with undefined).
 */
export type Shape = true | ((v: unknown) => unknown) | { [field: string]: Shape };

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Object metadata. */
export const META = {
  name: true,
  namespace: true,
  uid: true,
  resourceVersion: true,
  creationTimestamp: true,
  deletionTimestamp: true,
  deletionGracePeriodSeconds: true,
  labels: true,
  annotations: true,
  finalizers: true,
  ownerReferences: { apiVersion: true, kind: true, name: true, uid: true, controller: true },
} satisfies Shape;
/** A pod or node condition. */
export const CONDITION: Shape = { type: true, status: true, reason: true, message: true, lastTransitionTime: true };
/** A container of a pod spec. */
export const CONTAINER = {
  name: true,
  image: true,
  args: true,
  command: true,
  securityContext: true,
  volumeMounts: { name: true, mountPath: true, mountPropagation: true, readOnly: true, subPath: true },
  // The node agent's port (the bot finds agents among the pods it watches); the watch path drops it elsewhere.
  ports: { name: true, containerPort: true },
} satisfies Shape;
const CONTAINER_STATUS: Shape = {
  name: true,
  ready: true,
  restartCount: true,
  image: true,
  state: {
    waiting: { reason: true, message: true },
    running: { startedAt: true },
    terminated: { reason: true, exitCode: true, finishedAt: true },
  },
};
const TOP: Shape = { apiVersion: true, kind: true, metadata: META };
/** An in-tree volume source: kept as a marker (src/detect/volume-source.ts needs to know it is there, not its fields). */
const MARK: Shape = { readOnly: true };
/**
 * A pod volume: enough to tell storage (claims, ephemeral, inline CSI and in-tree) from configuration (secret,
 * configMap, projected, downwardAPI), scratch (emptyDir) and hostPath, and which Secret or ConfigMap it reads.
 */
const VOLUME: Shape = {
  name: true,
  persistentVolumeClaim: true,
  hostPath: true,
  ephemeral: true,
  csi: { driver: true },
  ...Object.fromEntries(IN_TREE_FIELDS.map((f) => [f, MARK])),
  nfs: { server: true, path: true },
  secret: { secretName: true, optional: true },
  configMap: { name: true, optional: true },
  projected: { sources: { secret: { name: true }, configMap: { name: true }, serviceAccountToken: { path: true } } },
  downwardAPI: { defaultMode: true },
  emptyDir: { medium: true, sizeLimit: true },
};

/** A pod, as the CLI reads it (the watch path trims it further: src/watch/slim.ts). */
export const POD = {
  ...TOP,
  spec: {
    nodeName: true,
    terminationGracePeriodSeconds: true,
    nodeSelector: true,
    serviceAccountName: true,
    volumes: VOLUME,
    containers: CONTAINER,
    initContainers: CONTAINER,
  },
  status: {
    phase: true,
    reason: true,
    startTime: true,
    podIP: true,
    conditions: CONDITION,
    containerStatuses: CONTAINER_STATUS,
    initContainerStatuses: CONTAINER_STATUS,
  },
} satisfies Shape;

/** The whitelists of the high-volume kinds, mirroring src/domain/objects.ts. */
const SHAPES: Partial<Record<KindKey, Shape>> = {
  pods: POD,
  pvcs: {
    ...TOP,
    spec: { accessModes: true, storageClassName: true, volumeName: true, volumeMode: true },
    status: { phase: true, accessModes: true },
  },
  pvs: {
    ...TOP,
    spec: {
      accessModes: true,
      storageClassName: true,
      persistentVolumeReclaimPolicy: true,
      claimRef: { namespace: true, name: true, uid: true },
      csi: { driver: true, volumeHandle: true },
      // In-tree PV sources as markers (the storage kind and the in-tree plugin name), nfs whole.
      ...Object.fromEntries(IN_TREE_FIELDS.map((f) => [f, MARK])),
      nfs: true,
    },
    status: { phase: true },
  },
  events: {
    ...TOP,
    involvedObject: { kind: true, namespace: true, name: true, uid: true },
    reason: true,
    message: true,
    type: true,
    count: true,
    firstTimestamp: true,
    lastTimestamp: true,
    eventTime: true,
    series: true,
    source: { component: true, host: true },
    reportingComponent: true,
  },
  volumeAttachments: {
    ...TOP,
    spec: { attacher: true, nodeName: true, source: { persistentVolumeName: true } },
    status: { attached: true, attachError: true, detachError: true },
  },
};

/**
 * The projected copy of one object of `kind` (never the input itself). Accepts anything: missing, null or
 * wrongly-typed fields are kept as they are (null stays null) or dropped, never thrown on.
 */
export function project<K extends KindKey>(kind: K, obj: unknown): ObjectsByKind[K] {
  return projectWith(SHAPES[kind] ?? true, obj) as ObjectsByKind[K];
}

/** project() with a given shape (`true`: everything but managedFields and last-applied); an object, possibly empty. */
export function projectWith(shape: Shape, obj: unknown): Record<string, unknown> {
  const out = pick(obj, shape) as Record<string, unknown> | null;
  if (!out || typeof out !== 'object' || Array.isArray(out)) return {};
  const meta = out.metadata as Record<string, unknown> | null | undefined;
  if (meta && typeof meta === 'object') {
    delete meta.managedFields;
    const ann = meta.annotations as Record<string, unknown> | null | undefined;
    if (ann && typeof ann === 'object' && LAST_APPLIED in ann) {
      const rest = { ...ann };
      delete rest[LAST_APPLIED];
      meta.annotations = rest;
    }
  }
  return out;
}

/** The projection of `v` by `shape` (see Shape): a new value, sharing nothing with `v`. */
export function pick(v: unknown, shape: Shape): unknown {
  return projector(shape)(v);
}

type Project = (v: unknown) => unknown;
const compiled = new WeakMap<object, Project>();

/** pick with `shape` as one function (object shapes compiled once, then reused). */
export function projector(shape: Shape): Project {
  if (shape === true) return plain;
  if (typeof shape === 'function') return shape;
  let fn = compiled.get(shape);
  if (!fn) compiled.set(shape, (fn = compile(shape)));
  return fn;
}

const FIELD = /^[A-Za-z_$][\w$./-]*$/;

/**
 * An object shape as one function: arrays element by element, anything not an object through plain, and an
 * object's fields by `fieldsOf` (below).
 */
function compile(shape: { [field: string]: Shape }): Project {
  const fields = Object.keys(shape);
  const subs = fields.map((f) => {
    if (!FIELD.test(f) || f === '__proto__')
      throw new Error(`projection shape: field name ${JSON.stringify(f)} is not a plain name`);
    return projector(shape[f] as Shape);
  });
  const pickFields = fieldsOf(fields, subs);
  const project = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      const arr = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) arr[i] = project(v[i]);
      return arr;
    }
    if (v === null || typeof v !== 'object' || v instanceof Date) return plain(v);
    return pickFields(v as Record<string, unknown>);
  };
  return project;
}

/**
 * The listed fields of an object (each through its sub-projection, undefined ones left out), as a function with
 * the field names written in: a load like `v["name"]` is a property access V8 caches per call site, where a loop
 * over the names (`v[f]` for each f) missed that cache for every field of every object: at 150k pods, most of the
 * projection's time. The code is made only of the shapes' own field names (this file's constants, never input;
 * each checked against FIELD and written as a JSON string literal) and fixed text. Where code generation is
 * disallowed (node --disallow-code-generation-from-strings) the names are looped over instead: the same result,
 * slower.
 */
function fieldsOf(fields: readonly string[], subs: readonly Project[]): (v: Record<string, unknown>) => unknown {
  const lines = fields.map((f, i) => {
    const k = JSON.stringify(f);
    return `if ((x = v[${k}]) !== undefined) out[${k}] = subs[${i}](x);`;
  });
  try {
    const make = new Function(
      'subs',
      `return function fields(v) { const out = {}; let x; ${lines.join(' ')} return out; };`,
    );
    return (make as (subs: readonly Project[]) => (v: Record<string, unknown>) => unknown)(subs);
  } catch (e) {
    if (!(e instanceof EvalError)) throw e;
  }
  return (v) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] as string;
      const x = v[f];
      if (x !== undefined) out[f] = (subs[i] as Project)(x);
    }
    return out;
  };
}

/** A deep copy with Dates as RFC 3339 strings and undefined fields dropped (as JSON would). */
function plain(v: unknown): unknown {
  if (v instanceof Date) return rfc3339(v);
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const arr = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) arr[i] = plain(v[i]);
    return arr;
  }
  // for-in + hasOwn visits what Object.entries would, without an array of [key, value] pairs per object: this
  // runs for every label, annotation and finalizer list of every object on the watch path.
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in src) {
    if (!Object.hasOwn(src, k)) continue;
    const x = src[k];
    if (x === undefined) continue;
    // An own "__proto__" (JSON.parse makes one from such a key) stays data: assigning it would set the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: plain(x), enumerable: true, writable: true });
    else out[k] = plain(x);
  }
  return out;
}

/** RFC 3339 as the API prints it: whole seconds without ".000", else with the fraction. */
export function rfc3339(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}
