// Scenario files: the YAML a person writes to describe a cluster and how it changes. Loading expands templates and
// checks the shape; relative times stay as written until the simulator applies them (see times.ts).
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { RwxError } from '../errors.js';
import type { KubeObject } from '../domain/objects.js';
import { parseDuration } from '../domain/duration.js';
import { expand } from './template.js';
import { resourceOfKind } from './resources.js';

const ref = z.object({ kind: z.string(), namespace: z.string().optional(), name: z.string() });
const rule = z.object({
  verb: z.string().optional(),
  resource: z.string().optional(),
  group: z.string().optional(),
  namespace: z.string().optional(),
});
const kubelet = z.object({
  brokenNodes: z.array(z.string()).optional(),
  brokenRevisionHashes: z.array(z.string()).optional(),
  failedMountInterval: z.string().optional(),
});
// Events may omit their name (the simulator makes one like the API server's "<object>.<hex>").
const obj = z
  .looseObject({ kind: z.string(), metadata: z.looseObject({ name: z.string().optional() }) })
  .refine((o) => o.kind === 'Event' || typeof o.metadata.name === 'string', {
    message: 'metadata.name is required',
    path: ['metadata', 'name'],
  });
const step = z.object({
  at: z.string(),
  note: z.string().optional(),
  add: z.array(obj).optional(),
  set: z.array(ref.extend({ fields: z.record(z.string(), z.unknown()) })).optional(),
  delete: z.array(ref).optional(),
  bumpEvent: z.array(z.object({ namespace: z.string(), name: z.string(), by: z.number().int().optional() })).optional(),
  compact: z.boolean().optional(),
  kubelet: kubelet.optional(),
});
const file = z.object({
  name: z.string(),
  description: z.string().optional(),
  start: z.string().optional(),
  vars: z.record(z.string(), z.unknown()).optional(),
  permissions: z.object({ allow: z.array(rule).optional(), deny: z.array(rule).optional() }).optional(),
  kubelet: kubelet.optional(),
  objects: z.array(obj).default([]),
  timeline: z.array(step).default([]),
});

/** A reference to one object by kind, namespace (for namespaced kinds) and name. */
export type ObjectRef = z.infer<typeof ref>;
/** An RBAC-like rule; omitted fields match anything. */
export type PermissionRule = z.infer<typeof rule>;
/** How the tiny kubelet treats mounts: which nodes fail them and how often FailedMount is reported. */
export type KubeletModel = z.infer<typeof kubelet>;
/** One timeline step, applied at offset `at` from the start; its relative times count from that moment. */
export type TimelineStep = Omit<z.infer<typeof step>, 'add'> & { atMs: number; add?: KubeObject[] };
/** A loaded scenario: templates expanded, shapes checked, steps sorted by time. */
export interface Scenario {
  name: string;
  description?: string;
  /** Absolute time of offset 0 (ISO); default the clock's time when the simulator starts. */
  start?: string;
  permissions?: { allow?: PermissionRule[]; deny?: PermissionRule[] };
  kubelet?: KubeletModel;
  objects: KubeObject[];
  timeline: TimelineStep[];
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return `${path.replace(/^\./, '') || '(top)'}: ${issue.message}`;
}

/** Checks and normalises an already-parsed scenario document; throws RwxError('INPUT') naming `source`. */
export function parseScenario(doc: unknown, source = 'scenario'): Scenario {
  const vars = (doc && typeof doc === 'object' && 'vars' in doc ? (doc as { vars: unknown }).vars : {}) ?? {};
  const expanded = expand(doc, { ...(vars as Record<string, unknown>) }, source);
  const r = file.safeParse(expanded);
  if (!r.success) throw new RwxError('INPUT', `${source}: ${r.error.issues.slice(0, 3).map(describeIssue).join('; ')}`);
  const f = r.data;
  const checkKind = (k: string, where: string) => {
    if (!resourceOfKind(k))
      throw new RwxError('INPUT', `${source}: ${where}: kind "${k}" is not served by the simulator`);
  };
  f.objects.forEach((o, i) => checkKind(o.kind, `objects[${i}]`));
  const timeline = f.timeline.map((s, i) => {
    let atMs: number;
    try {
      atMs = parseDuration(s.at.replace(/^\+/, ''), `${source}: timeline[${i}].at`);
    } catch (e) {
      throw new RwxError('INPUT', (e as Error).message);
    }
    for (const o of s.add ?? []) checkKind(o.kind, `timeline[${i}].add`);
    for (const o of [...(s.set ?? []), ...(s.delete ?? [])]) checkKind(o.kind, `timeline[${i}]`);
    return { ...s, atMs, add: s.add as KubeObject[] | undefined };
  });
  timeline.sort((a, b) => a.atMs - b.atMs);
  return { ...f, objects: f.objects as KubeObject[], timeline };
}

/** Reads and parses a scenario YAML file; any problem is one RwxError('INPUT') line naming the file. */
export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new RwxError('INPUT', `cannot read scenario ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, {
      cause: e,
    });
  }
  const docs = parseAllDocuments(text, { merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const first = list[0];
  if (!first) throw new RwxError('INPUT', `${path}: empty scenario file`);
  const err = first.errors[0];
  if (err) throw new RwxError('INPUT', `${path}: invalid YAML: ${err.message.split('\n')[0]}`);
  return parseScenario(first.toJS({ maxAliasCount: -1 }), path);
}
