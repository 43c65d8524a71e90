// The difference between two pod templates (two ControllerRevisions of a node plugin DaemonSet), storage- and
// security-relevant fields first. Shared by the FOLLOWS_ROLLOUT evidence and `rwx diff`.
// Absent mountPropagation means None (private); it is printed "none" so a lost Bidirectional reads
// `kubelet-dir: mountPropagation Bidirectional -> none`.
import type { TemplateChange } from '../domain/incident.js';
import type { Container, PodTemplate, Volume, VolumeMount } from '../domain/objects.js';

type Category = TemplateChange['category'];
const ORDER: Record<Category, number> = { storage: 0, security: 1, image: 2, other: 3 };
const MAX_VALUE = 160;

/** Short printable form of any value ("absent" for undefined). */
function show(v: unknown): string {
  if (v === undefined || v === null) return 'absent';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE - 3)}...` : s;
}

/** Stable JSON for comparisons (object keys sorted). */
function canon(v: unknown): string {
  return (
    JSON.stringify(v, (_k, val: unknown) =>
      val && typeof val === 'object' && !Array.isArray(val)
        ? Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
        : val,
    ) ?? 'undefined'
  );
}

function propagation(m: VolumeMount | undefined): string {
  const p = m?.mountPropagation;
  return !p || p === 'None' ? 'none' : p;
}

class Changes {
  readonly list: TemplateChange[] = [];
  /** Records `<subject>: <label> <from> -> <to>`; `field` is the full path, e.g. "volumeMount kubelet-dir mountPropagation". */
  add(
    category: Category,
    container: string | undefined,
    subject: string,
    label: string,
    from: unknown,
    to: unknown,
    field?: string,
  ): void {
    const c: TemplateChange = {
      category,
      field: field ?? `${subject} ${label}`,
      from: show(from),
      to: show(to),
      text: `${subject}: ${label} ${show(from)} -> ${show(to)}`,
    };
    if (container !== undefined) c.container = container;
    this.list.push(c);
  }
}

function byName<T extends { name?: string }>(items: readonly T[] | null | undefined): Map<string, T> {
  const m = new Map<string, T>();
  for (const it of items ?? []) if (it) m.set(it.name ?? '', it);
  return m;
}

function mountsDiff(out: Changes, cname: string, a: Container | undefined, b: Container | undefined): void {
  const from = byName(a?.volumeMounts);
  const to = byName(b?.volumeMounts);
  for (const name of new Set([...from.keys(), ...to.keys()])) {
    const x = from.get(name);
    const y = to.get(name);
    if (!x || !y) {
      const describe = (m: VolumeMount) => `${m.mountPath ?? '?'} (${propagation(m)})`;
      out.add(
        'storage',
        cname,
        name,
        'volumeMount',
        x ? describe(x) : undefined,
        y ? describe(y) : undefined,
        `volumeMount ${name}`,
      );
      continue;
    }
    const f = (label: string) => `volumeMount ${name} ${label}`;
    if (propagation(x) !== propagation(y))
      out.add('storage', cname, name, 'mountPropagation', propagation(x), propagation(y), f('mountPropagation'));
    if (x.mountPath !== y.mountPath)
      out.add('storage', cname, name, 'mountPath', x.mountPath, y.mountPath, f('mountPath'));
    if (!!x.readOnly !== !!y.readOnly)
      out.add('storage', cname, name, 'readOnly', !!x.readOnly, !!y.readOnly, f('readOnly'));
    if (x.subPath !== y.subPath) out.add('storage', cname, name, 'subPath', x.subPath, y.subPath, f('subPath'));
  }
}

function containerDiff(out: Changes, cname: string, a: Container | undefined, b: Container | undefined): void {
  if (!a || !b) {
    out.add(
      'other',
      cname,
      cname,
      'container',
      a ? (a.image ?? 'present') : undefined,
      b ? (b.image ?? 'present') : undefined,
    );
    mountsDiff(out, cname, a, b);
    return;
  }
  mountsDiff(out, cname, a, b);
  const sa = a.securityContext ?? {};
  const sb = b.securityContext ?? {};
  if (!!sa.privileged !== !!sb.privileged)
    out.add('security', cname, cname, 'privileged', !!sa.privileged, !!sb.privileged);
  for (const k of ['add', 'drop'] as const) {
    const x = [...(sa.capabilities?.[k] ?? [])].sort();
    const y = [...(sb.capabilities?.[k] ?? [])].sort();
    if (canon(x) !== canon(y))
      out.add('security', cname, cname, `capabilities.${k}`, `[${x.join(', ')}]`, `[${y.join(', ')}]`);
  }
  const restA = { ...sa, privileged: undefined, capabilities: undefined };
  const restB = { ...sb, privileged: undefined, capabilities: undefined };
  if (canon(restA) !== canon(restB)) out.add('security', cname, cname, 'securityContext', restA, restB);
  if (a.image !== b.image) out.add('image', cname, cname, 'image', a.image, b.image);
  const skip = new Set(['name', 'image', 'volumeMounts', 'securityContext']);
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (skip.has(k)) continue;
    if (canon(a[k]) !== canon(b[k])) out.add('other', cname, cname, k, a[k], b[k]);
  }
}

function volumesDiff(
  out: Changes,
  a: readonly Volume[] | null | undefined,
  b: readonly Volume[] | null | undefined,
): void {
  const from = byName(a);
  const to = byName(b);
  for (const name of new Set([...from.keys(), ...to.keys()])) {
    const x = from.get(name);
    const y = to.get(name);
    if (canon(x) === canon(y)) continue;
    const before = out.list.length;
    if (x?.hostPath || y?.hostPath) {
      if (x?.hostPath?.path !== y?.hostPath?.path)
        out.add('storage', undefined, `volume ${name}`, 'hostPath', x?.hostPath?.path, y?.hostPath?.path);
      else if (x?.hostPath?.type !== y?.hostPath?.type)
        out.add('storage', undefined, `volume ${name}`, 'hostPath.type', x?.hostPath?.type, y?.hostPath?.type);
    }
    // Anything else about the volume (a renamed ConfigMap, a changed size limit) is "other".
    if (out.list.length === before) out.add('other', undefined, `volume ${name}`, 'definition', x, y);
  }
}

/** The changes from one pod template to another, storage first, then security, image, other; stable order within. */
export function diffTemplates(from: PodTemplate | undefined, to: PodTemplate | undefined): TemplateChange[] {
  const out = new Changes();
  const sa = from?.spec ?? {};
  const sb = to?.spec ?? {};
  for (const [kind, prefix] of [
    ['initContainers', 'init:'],
    ['containers', ''],
  ] as const) {
    const ca = byName(sa[kind]);
    const cb = byName(sb[kind]);
    for (const name of new Set([...ca.keys(), ...cb.keys()]))
      containerDiff(out, `${prefix}${name}`, ca.get(name), cb.get(name));
  }
  volumesDiff(out, sa.volumes, sb.volumes);
  for (const k of ['hostPID', 'hostNetwork', 'hostIPC'] as const) {
    if (!!sa[k] !== !!sb[k]) out.add('security', undefined, 'pod', k, !!sa[k], !!sb[k]);
  }
  const skip = new Set(['containers', 'initContainers', 'volumes', 'hostPID', 'hostNetwork', 'hostIPC']);
  for (const k of [...new Set([...Object.keys(sa), ...Object.keys(sb)])].sort()) {
    if (!skip.has(k) && canon(sa[k]) !== canon(sb[k])) out.add('other', undefined, 'pod', k, sa[k], sb[k]);
  }
  if (canon(from?.metadata?.labels ?? {}) !== canon(to?.metadata?.labels ?? {})) {
    out.add('other', undefined, 'template', 'labels', from?.metadata?.labels ?? {}, to?.metadata?.labels ?? {});
  }
  if (canon(from?.metadata?.annotations ?? {}) !== canon(to?.metadata?.annotations ?? {})) {
    out.add(
      'other',
      undefined,
      'template',
      'annotations',
      from?.metadata?.annotations ?? {},
      to?.metadata?.annotations ?? {},
    );
  }
  return out.list
    .map((c, i) => ({ c, i }))
    .sort((x, y) => ORDER[x.c.category] - ORDER[y.c.category] || x.i - y.i)
    .map(({ c }) => c);
}
