// Writes the values table of charts/rwx/README.md from charts/rwx/values.yaml: every leaf value with its default
// and the comment above it. `npm run chart:readme` rewrites the table; test/charts/readme.test.ts fails when the
// README's table is not what this makes of the current values.yaml.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';

const BEGIN = '<!-- values-table: begin (npm run chart:readme) -->';
const END = '<!-- values-table: end -->';

/** A comment as one line of Markdown table text. */
const cell = (text) =>
  (text ?? '')
    .split('\n')
    .map((l) => l.replace(/^\s?/, '').trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\|/g, '\\|');

/** The rows (key, default, description) of a values.yaml text, depth first in file order. */
export function valuesRows(text) {
  const rows = [];
  const walk = (map, prefix, inherited) => {
    map.items.forEach((pair, i) => {
      if (!isPair(pair)) return;
      const key = `${prefix}${String(isScalar(pair.key) ? pair.key.value : pair.key)}`;
      const own = [i === 0 ? map.commentBefore : undefined, pair.key?.commentBefore].filter(Boolean).join('\n');
      const comment = cell(own) || (i === 0 ? inherited : '');
      const v = pair.value;
      if (isMap(v) && v.items.length > 0) return walk(v, `${key}.`, comment);
      const value = isScalar(v) || isSeq(v) || isMap(v) ? JSON.stringify(v.toJSON()) : 'null';
      rows.push([key, value, comment]);
    });
  };
  const doc = parseDocument(text);
  if (isMap(doc.contents)) walk(doc.contents, '', '');
  return rows;
}

/** The Markdown table, between its markers. */
export function valuesTable(text) {
  const lines = ['| Key | Default | Description |', '| --- | --- | --- |'];
  for (const [k, v, d] of valuesRows(text)) lines.push(`| \`${k}\` | \`${v.replace(/\|/g, '\\|')}\` | ${d} |`);
  return `${BEGIN}\n${lines.join('\n')}\n${END}`;
}

/** The README text with its table replaced by the one of `values`. */
export function withTable(readme, values) {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`charts/rwx/README.md: no ${BEGIN} ... ${END} section`);
  return readme.slice(0, a) + valuesTable(values) + readme.slice(b + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const chart = fileURLToPath(new URL('../charts/rwx/', import.meta.url));
  const readme = readFileSync(`${chart}README.md`, 'utf8');
  writeFileSync(`${chart}README.md`, withTable(readme, readFileSync(`${chart}values.yaml`, 'utf8')));
}
