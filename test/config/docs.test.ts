// docs/configuration.md carries the reference table generated from the key table, and the schema, the key table
// and the defaults agree with one another.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, DEFAULT_CONFIG, rawConfigSchema, referenceTable } from '../../src/config/index.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('configuration reference', () => {
  it('the schema has exactly one field per key-table row, and every default names a real key', () => {
    expect(Object.keys(rawConfigSchema.shape).sort()).toEqual(CONFIG_KEYS.map((k) => k.key).sort());
    for (const k of Object.keys(DEFAULT_CONFIG)) expect(CONFIG_KEYS.map((c) => c.key)).toContain(k);
    expect(new Set(CONFIG_KEYS.map((k) => k.env)).size).toBe(CONFIG_KEYS.length);
  });

  it('docs/configuration.md contains the generated table verbatim', () => {
    const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    // To regenerate: npm run build && node -e "import('./dist/config/index.js').then(m => console.log(m.referenceTable()))"
    expect(doc).toContain(referenceTable());
    for (const k of CONFIG_KEYS) expect(doc).toContain(`| \`${k.env}\` | \`${k.key}\` |`);
  });
});
