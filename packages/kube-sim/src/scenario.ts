// Scenario files: the YAML a person writes to describe a cluster and how it changes. Loading expands templates and
// checks the shape; relative times stay as written until the simulator applies them (see times.ts).
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { SimError } from './errors.js';
import type { KubeObject } from './objects.js';
import { parseDuration } from './duration.js';
import { expand } from './template.js';
import { Resources, type CustomResource } from './resources.js';
import { faultCommand, type FaultCommand } from './fault-commands.js';

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
const custom = z.strictObject({
  kind: z.string().regex(/^[A-Z][A-Za-z0-9]*$/),
  group: z.string(),
  version: z.string().regex(/^v\d+((alpha|beta)\d+)?$/),
  resource: z.string().regex(/^[a-z][a-z0-9]*$/),
  namespaced: z.boolean(),
  shortNames: z.array(z.string()).optional(),
});
const file = z.object({
  name: z.string(),
  description: z.string().optional(),
  start: z.string().optional(),
  bookmarkInterval: z.string().optional(),
  resources: z.array(custom).optional(),
  faults: z.array(z.unknown()).optional(),
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
  /** Sim milliseconds between watch bookmarks (default a minute). */
  bookmarkIntervalMs?: number;
  /** Kinds beyond the built-in table, served like built-in ones (what a CRD would declare). */
  resources?: CustomResource[];
  /** Fault knobs switched on when the simulator starts. */
  faults?: FaultCommand[];
  permissions?: { allow?: PermissionRule[]; deny?: PermissionRule[] };
  kubelet?: KubeletModel;
  objects: KubeObject[];
  timeline: TimelineStep[];
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return `${path.replace(/^\./, '') || '(top)'}: ${issue.message}`;
}

/** Checks and normalises an already-parsed scenario document; throws SimError('SCENARIO') naming `source`. */
export function parseScenario(doc: unknown, source = 'scenario'): Scenario {
  const vars = (doc && typeof doc === 'object' && 'vars' in doc ? (doc as { vars: unknown }).vars : {}) ?? {};
  const expanded = expand(doc, { ...(vars as Record<string, unknown>) }, source);
  const r = file.safeParse(expanded);
  if (!r.success)
    throw new SimError('SCENARIO', `${source}: ${r.error.issues.slice(0, 3).map(describeIssue).join('; ')}`);
  const { bookmarkInterval, faults: rawFaults, ...f } = r.data;
  const resources = new Resources(f.resources);
  const checkKind = (k: string, where: string) => {
    if (!resources.ofKind(k)) {
      const hint = 'declare it under resources: (kind, group, version, resource, namespaced)';
      throw new SimError('SCENARIO', `${source}: ${where}: kind "${k}" is not a built-in resource: ${hint}`);
    }
  };
  f.objects.forEach((o, i) => checkKind(o.kind, `objects[${i}]`));
  const timeline = f.timeline.map((s, i) => {
    const atMs = parseDuration(s.at.replace(/^\+/, ''), `${source}: timeline[${i}].at`);
    for (const o of s.add ?? []) checkKind(o.kind, `timeline[${i}].add`);
    for (const o of [...(s.set ?? []), ...(s.delete ?? [])]) checkKind(o.kind, `timeline[${i}]`);
    return { ...s, atMs, add: s.add as KubeObject[] | undefined };
  });
  timeline.sort((a, b) => a.atMs - b.atMs);
  const faults = (rawFaults ?? []).map((c, i) => {
    const p = faultCommand.safeParse(c);
    if (p.success) return p.data;
    throw new SimError(
      'SCENARIO',
      `${source}: faults[${i}]: ${p.error.issues.slice(0, 1).map(describeIssue).join('')}`,
    );
  });
  return {
    ...f,
    objects: f.objects as KubeObject[],
    timeline,
    ...(faults.length ? { faults } : {}),
    ...(bookmarkInterval ? { bookmarkIntervalMs: parseDuration(bookmarkInterval, `${source}: bookmarkInterval`) } : {}),
  };
}

/** Reads and parses a scenario YAML file; any problem is one SimError('SCENARIO') line naming the file. */
export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new SimError('SCENARIO', `cannot read scenario ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, {
      cause: e,
    });
  }
  const docs = parseAllDocuments(text, { merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const first = list[0];
  if (!first) throw new SimError('SCENARIO', `${path}: empty scenario file`);
  const err = first.errors[0];
  if (err) throw new SimError('SCENARIO', `${path}: invalid YAML: ${err.message.split('\n')[0]}`);
  return parseScenario(first.toJS({ maxAliasCount: -1 }), path);
}
