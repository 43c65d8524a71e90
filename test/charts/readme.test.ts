// charts/rwx/README.md's values table is the one scripts/chart-readme.mjs makes of values.yaml: every value with its
// default and its comment, so the README cannot drift from the chart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { valuesRows, withTable } from '../../scripts/chart-readme.mjs';
import { CHART } from './helm.js';

const values = readFileSync(join(CHART, 'values.yaml'), 'utf8');
const readme = readFileSync(join(CHART, 'README.md'), 'utf8');

describe('charts/rwx/README.md values table', () => {
  it('is generated from the current values.yaml (npm run chart:readme)', () => {
    expect(readme).toBe(withTable(readme, values));
  });

  it('has a row for every leaf value, with its default and comment', () => {
    const rows = valuesRows(values);
    expect(rows.map((r) => r[0])).toEqual(
      expect.arrayContaining(['image.repository', 'redis.persistence.storageClass']),
    );
    const sc = rows.find((r) => r[0] === 'redis.persistence.storageClass');
    expect(sc?.[2]).toMatch(/^WARNING: do not put this volume on the CSI driver rwx watches/);
    expect(rows.find((r) => r[0] === 'redis.image.tag')?.[1]).toBe('"8.1.4-alpine"');
    // a changed default makes the table stale
    const changed = values.replace('tag: 8.1.4-alpine', 'tag: 8.1.5-alpine');
    expect(withTable(readme, changed)).not.toBe(readme);
  });
});
