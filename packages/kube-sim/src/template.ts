// Scenario templating: `forEach` list expansion and `${...}` substitution, so a 40-node scenario stays readable.
//
//   - forEach: {n: "01..40", except: ["19", "27"]}     # a range (zero padding follows the first bound) or a list
//     kind: Node
//     metadata: {name: "node-${n}"}
//
// Any map inside a list may carry `forEach`; the map is repeated once per value with the variable bound. Values may
// be maps (`${item.node}`). Filters: `${n|int}` (number), `${n|suffix}` (a stable 5-character pod-name suffix;
// `${n|suffix:new}` another one for the same value), `${n|hex8}` (8 hex digits), `${n|sha256}` (64),
// `${n|uid:salt}` (a stable uid). A string that is exactly one `${...}` keeps the value's type.
import { createHash } from 'node:crypto';
import { SimError } from './errors.js';

/** Variables visible to `${...}` expressions. */
export type Vars = Record<string, unknown>;

const EXPR = /\$\{([^}]+)\}/g;
const ONLY_EXPR = /^\$\{([^}]+)\}$/;
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A uid that looks like a real one (UUID v4 layout), stable for the same seed. */
export function stableUid(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  const variant = '89ab'[parseInt(h[16] ?? '0', 16) % 4];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A stable string of `n` characters from kube's random-suffix alphabet, derived from `seed`. */
export function stableSuffix(seed: string, n = 5): string {
  const h = createHash('sha1').update(seed).digest();
  let s = '';
  for (let i = 0; i < n; i++) s += SUFFIX_ALPHABET[(h[i] ?? 0) % SUFFIX_ALPHABET.length];
  return s;
}

function lookup(path: string, vars: Vars, where: string): unknown {
  let cur: unknown = vars;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(part in (cur as Vars))) {
      throw new SimError('SCENARIO', `${where}: unknown variable "${path}"`);
    }
    cur = (cur as Vars)[part];
  }
  return cur;
}

function evaluate(expr: string, vars: Vars, where: string): unknown {
  const [path = '', ...filters] = expr.split('|').map((s) => s.trim());
  let v = lookup(path, vars, where);
  for (const filter of filters) {
    const [f, arg = ''] = filter.split(':');
    if (f === 'int') v = Number(v);
    else if (f === 'suffix') v = stableSuffix(`${String(v)}${arg ? `:${arg}` : ''}`);
    else if (f === 'hex8')
      v = createHash('sha1')
        .update(`${String(v)}${arg}`)
        .digest('hex')
        .slice(0, 8);
    else if (f === 'sha256')
      v = createHash('sha256')
        .update(`${String(v)}${arg}`)
        .digest('hex');
    else if (f === 'uid') v = stableUid(`${String(v)}${arg ? `:${arg}` : ''}`);
    else throw new SimError('SCENARIO', `${where}: unknown filter "${filter}" in \${${expr}}`);
  }
  return v;
}

/** Substitutes `${...}` in a string; a string that is a single expression keeps the value's type. */
export function substitute(text: string, vars: Vars, where: string): unknown {
  const only = ONLY_EXPR.exec(text);
  if (only) return evaluate(only[1] ?? '', vars, where);
  return text.replace(EXPR, (_, e: string) => String(evaluate(e, vars, where)));
}

/** Values of a forEach source: "01..40" (zero-padded like the first bound), "1..5", or a list. */
export function rangeValues(src: unknown, where: string): unknown[] {
  if (Array.isArray(src)) return src;
  const m = typeof src === 'string' ? /^(\d+)\.\.(\d+)$/.exec(src.trim()) : null;
  if (!m) throw new SimError('SCENARIO', `${where}: forEach wants a range like "01..40" or a list`);
  const [a = '', b = ''] = [m[1], m[2]];
  const width = a.startsWith('0') ? a.length : 0;
  const out: string[] = [];
  for (let i = Number(a); i <= Number(b); i++) out.push(String(i).padStart(width, '0'));
  return out;
}

function bindings(spec: unknown, vars: Vars, where: string): Vars[] {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw new SimError('SCENARIO', `${where}: forEach must be a map like {n: "01..40"}`);
  }
  const { except, ...rest } = spec as Record<string, unknown>;
  const names = Object.keys(rest);
  if (names.length !== 1)
    throw new SimError('SCENARIO', `${where}: forEach binds exactly one variable (got ${names.length})`);
  const name = names[0] ?? '';
  const excluded = new Set((Array.isArray(except) ? except : []).map((e) => String(e)));
  const src = expand(rest[name], vars, where);
  return rangeValues(src, where)
    .filter((v) => !excluded.has(String(v)) && !(typeof v === 'string' && excluded.has(String(Number(v)))))
    .map((v) => ({ ...vars, [name]: v }));
}

/** Expands forEach items and `${...}` expressions everywhere in a parsed YAML tree. */
export function expand(node: unknown, vars: Vars, where: string): unknown {
  if (Array.isArray(node)) {
    return node.flatMap((item, i) => {
      const at = `${where}[${i}]`;
      if (item !== null && typeof item === 'object' && !Array.isArray(item) && 'forEach' in item) {
        const { forEach, ...body } = item as Record<string, unknown>;
        return bindings(forEach, vars, at).map((b) => expand(body, b, at));
      }
      return [expand(item, vars, at)];
    });
  }
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node))
      out[String(substitute(k, vars, where))] = expand(v, vars, `${where}.${k}`);
    return out;
  }
  if (typeof node === 'string') return substitute(node, vars, where);
  return node;
}
