// Field paths for timeline `set` steps: dotted, with [n] for list items and ["..."] for keys that contain dots,
// e.g. `status.containerStatuses[0].ready` or `metadata.labels["app.kubernetes.io/name"]`.
import { SimError } from './errors.js';

/** Splits a field path into keys and list indexes; throws SimError('SCENARIO') when malformed. */
export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]"]+)|\[(\d+)\]|\["([^"]+)"\]/g;
  let consumed = 0;
  for (const m of path.matchAll(re)) {
    const between = path.slice(consumed, m.index);
    if (between !== '' && between !== '.') throw new SimError('SCENARIO', `bad field path "${path}"`);
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (m[3] ?? '')));
    consumed = (m.index ?? 0) + m[0].length;
  }
  if (out.length === 0 || consumed !== path.length) throw new SimError('SCENARIO', `bad field path "${path}"`);
  return out;
}

/** Sets (or with `null`, removes) the value at `path` in `root`, creating maps on the way. Mutates `root`. */
export function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const parts = parsePath(path);
  let cur: Record<string | number, unknown> = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const k = parts[i] as string | number;
    let next = cur[k];
    if (next === null || typeof next !== 'object') {
      next = typeof parts[i + 1] === 'number' ? [] : {};
      cur[k] = next;
    }
    cur = next as Record<string | number, unknown>;
  }
  const last = parts[parts.length - 1] as string | number;
  if (value === null && !Array.isArray(cur)) delete cur[last];
  else cur[last] = value;
}
