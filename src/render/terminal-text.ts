// Helpers shared by the terminal renderers: strip control characters from cluster-provided strings (a pod name
// must not be able to move the cursor, recolour the terminal or reverse the text after it) and lay out tables.
import { stripUnsafe } from './escape.js';

/** Removes C0/C1 control characters except newline and tab, and bidi and zero-width characters (stripUnsafe). */
export function clean(text: string): string {
  return stripUnsafe(text);
}

/** Left-aligned columns separated by two spaces; cells are cleaned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], indent = ''): string[] {
  const all = [header, ...rows].map((r) => r.map((c) => clean(c)));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) =>
    `${indent}${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd(),
  );
}
