// The configuration reference table in Markdown, generated from the key table so docs/configuration.md cannot
// drift: test/config/docs.test.ts checks the doc contains exactly this output.
import { CONFIG_KEYS, DEFAULT_CONFIG } from './keys.js';

/** A default as the docs show it. */
function shownDefault(key: string): string {
  const v = (DEFAULT_CONFIG as Record<string, unknown>)[key];
  if (v === undefined || v === '') return '';
  if (Array.isArray(v)) return v.length ? `\`${v.join(',')}\`` : '';
  if (typeof v === 'object' && v !== null) return Object.keys(v).length ? `\`${JSON.stringify(v)}\`` : '';
  return `\`${String(v)}\``;
}

/** The Markdown reference table: variable | file key | default | form | meaning (secrets marked). */
export function referenceTable(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const rows = CONFIG_KEYS.map(
    (k) =>
      `| \`${k.env}\` | \`${k.key}\` | ${shownDefault(k.key)} | ${esc(k.form)} | ${esc(k.doc)}${k.secret ? ' **Secret.**' : ''} |`,
  );
  return ['| Variable | File key | Default | Form | Meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}
