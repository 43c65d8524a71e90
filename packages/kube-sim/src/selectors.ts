// Label and field selectors with the API server's grammar. Pure: parse once per request, match per object.
import { SimError } from './errors.js';
import type { KubeObject } from './objects.js';

/** A compiled selector: true when the object matches. */
export type Matcher = (obj: KubeObject) => boolean;

interface LabelReq {
  key: string;
  op: 'in' | 'notin' | 'exists' | '!exists';
  values: string[];
}

/** Splits on commas that are not inside parentheses ("a in (x,y),b" -> ["a in (x,y)", "b"]). */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const SET_RE = /^([A-Za-z0-9./_-]+)\s+(in|notin)\s+\(([^)]*)\)$/;
const EQ_RE = /^([A-Za-z0-9./_-]+)\s*(==|!=|=)\s*([A-Za-z0-9._-]*)$/;
const EXISTS_RE = /^(!?)([A-Za-z0-9./_-]+)$/;

function parseLabelReq(part: string): LabelReq {
  let m = SET_RE.exec(part);
  if (m) {
    const values = (m[3] ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    return { key: m[1] ?? '', op: m[2] as 'in' | 'notin', values };
  }
  m = EQ_RE.exec(part);
  if (m) return { key: m[1] ?? '', op: m[2] === '!=' ? 'notin' : 'in', values: [m[3] ?? ''] };
  m = EXISTS_RE.exec(part);
  if (m) return { key: m[2] ?? '', op: m[1] ? '!exists' : 'exists', values: [] };
  throw new SimError('SELECTOR', `unable to parse requirement: "${part}"`);
}

/** Compiles a labelSelector (=, ==, !=, in, notin, exists, !exists); throws SimError('SELECTOR') when malformed. */
export function parseLabelSelector(text: string | null | undefined): Matcher {
  const reqs = splitTop(text ?? '').map(parseLabelReq);
  if (reqs.length === 0) return () => true;
  return (obj) => {
    const labels = obj.metadata?.labels ?? {};
    return reqs.every((r) => {
      const has = Object.prototype.hasOwnProperty.call(labels, r.key);
      const v = labels[r.key];
      switch (r.op) {
        case 'exists':
          return has;
        case '!exists':
          return !has;
        case 'in':
          return has && r.values.includes(v ?? '');
        case 'notin':
          return !has || !r.values.includes(v ?? '');
      }
    });
  };
}

/** Field paths the API server accepts per resource (metadata.name and metadata.namespace are always accepted). */
const FIELDS: Record<string, string[]> = {
  pods: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  nodes: ['spec.unschedulable'],
  persistentvolumeclaims: [],
  namespaces: ['status.phase'],
  jobs: ['status.successful'],
};

function fieldValue(obj: KubeObject, path: string): string {
  if (path === 'source') return String((obj as { source?: { component?: string } }).source?.component ?? '');
  let cur: unknown = obj;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur === undefined || cur === null ? '' : String(cur);
}

/** Compiles a fieldSelector for `resource`; throws SimError('SELECTOR') for malformed text or unsupported fields. */
export function parseFieldSelector(text: string | null | undefined, resource: string): Matcher {
  const reqs = splitTop(text ?? '').map((part) => {
    const m = /^([A-Za-z0-9._-]+)\s*(==|!=|=)\s*(.*)$/.exec(part);
    if (!m) throw new SimError('SELECTOR', `invalid selector: '${part}'; can't understand '${part}'`);
    const field = m[1] ?? '';
    const allowed =
      field === 'metadata.name' || field === 'metadata.namespace' || (FIELDS[resource] ?? []).includes(field);
    if (!allowed) throw new SimError('SELECTOR', `field label not supported: ${field}`);
    return { field, neg: m[2] === '!=', value: m[3] ?? '' };
  });
  if (reqs.length === 0) return () => true;
  return (obj) => reqs.every((r) => (fieldValue(obj, r.field) === r.value) !== r.neg);
}
