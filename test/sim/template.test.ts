// Pure pieces of scenario loading: templates, relative times, field paths, label selectors.
import { describe, expect, test } from 'vitest';
import { expand, rangeValues, stableSuffix } from '../../packages/kube-sim/src/template.js';
import { resolveTime } from '../../packages/kube-sim/src/times.js';
import { parsePath, setPath } from '../../packages/kube-sim/src/paths.js';
import { parseLabelSelector } from '../../packages/kube-sim/src/selectors.js';

const T0 = Date.parse('2026-11-30T09:15:00Z');

describe('templates', () => {
  const cases: [string, unknown, Record<string, unknown>, unknown][] = [
    // plain substitution inside a string
    ['string', 'node-${n}', { n: '07' }, 'node-07'],
    // a lone expression keeps the value's type
    ['typed', '${count}', { count: 9 }, 9],
    // dotted access into a map, and into a list by index
    ['dotted', '${row.node}/${list.1}', { row: { node: 'node-19' }, list: ['a', 'b'] }, 'node-19/b'],
    // filters
    ['int', '${n|int}', { n: '07' }, 7],
    ['hex8', '${n|hex8}', { n: 'x' }, expect.stringMatching(/^[0-9a-f]{8}$/)],
    ['uid', '${n|uid:a}', { n: 'x' }, expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4/)],
    // forEach over a padded range with an exception
    [
      'forEach',
      [{ forEach: { n: '08..11', except: ['10'] }, name: 'node-${n}' }],
      {},
      [{ name: 'node-08' }, { name: 'node-09' }, { name: 'node-11' }],
    ],
    // forEach over a list variable of maps
    [
      'forEach list',
      [{ forEach: { r: '${rows}' }, v: '${r.a}' }],
      { rows: [{ a: 1 }, { a: 2 }] },
      [{ v: 1 }, { v: 2 }],
    ],
  ];
  test.each(cases)('%s', (_name, input, vars, want) => {
    expect(expand(input, vars, 'test')).toEqual(want);
  });

  test("ranges keep the first bound's zero padding; suffixes are stable and kube-like", () => {
    expect(rangeValues('1..3', 'x')).toEqual(['1', '2', '3']);
    expect(rangeValues('01..03', 'x')).toEqual(['01', '02', '03']);
    expect(stableSuffix('a')).toBe(stableSuffix('a'));
    expect(stableSuffix('a')).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});

describe('relative times', () => {
  const cases: [unknown, string, unknown][] = [
    // minutes before the base
    ['-24m', 'creationTimestamp', '2026-11-30T08:51:00Z'],
    // compound, days
    ['-3h1m', 'lastTimestamp', '2026-11-30T06:14:00Z'],
    ['-26d', 'creationTimestamp', '2026-11-04T09:15:00Z'],
    // now and future
    ['now', 'lastTimestamp', '2026-11-30T09:15:00Z'],
    ['+5s', 'startedAt', '2026-11-30T09:15:05Z'],
    // MicroTime fields get microseconds
    ['-2s', 'renewTime', '2026-11-30T09:14:58.000000Z'],
    // absolute values and non-strings pass through
    ['2026-01-01T00:00:00Z', 'creationTimestamp', '2026-01-01T00:00:00Z'],
    [null, 'deletionTimestamp', null],
  ];
  test.each(cases)('%j in %s', (value, key, want) => {
    expect(resolveTime(value, T0, key)).toEqual(want);
  });
});

describe('field paths', () => {
  test('dots, indexes, quoted keys; null removes', () => {
    expect(parsePath('metadata.labels["app.kubernetes.io/name"]')).toEqual([
      'metadata',
      'labels',
      'app.kubernetes.io/name',
    ]);
    expect(parsePath('status.containerStatuses[0].ready')).toEqual(['status', 'containerStatuses', 0, 'ready']);
    const o: Record<string, unknown> = { spec: { unschedulable: true } };
    setPath(o, 'spec.unschedulable', null);
    setPath(o, 'status.conditions[0].type', 'Ready');
    expect(o).toEqual({ spec: {}, status: { conditions: [{ type: 'Ready' }] } });
    expect(() => parsePath('a..b')).toThrow(/bad field path/);
  });
});

describe('label selectors', () => {
  const obj = { metadata: { labels: { app: 'web', 'app.kubernetes.io/name': 'x' } } };
  const cases: [string, boolean][] = [
    ['', true], // empty selects everything
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app in (db, web)', true],
    ['app notin (web)', false],
    ['tier', false],
    ['!tier', true],
    ['app.kubernetes.io/name=x', true],
    ['app=web,tier', false], // requirements are ANDed
  ];
  test.each(cases)('%j -> %s', (sel, want) => {
    expect(parseLabelSelector(sel)(obj)).toBe(want);
  });
  test('malformed selectors throw a SELECTOR error', () => {
    expect(() => parseLabelSelector('a in b')).toThrow(expect.objectContaining({ code: 'SELECTOR' }));
  });
});
