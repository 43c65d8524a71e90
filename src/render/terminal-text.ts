// Helpers shared by the terminal renderers: strip control characters from cluster-provided strings (a pod name
// must not be able to move the cursor or recolour the terminal) and lay out plain-text tables.

/** Removes C0/C1 control characters except newline and tab. */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** Left-aligned columns separated by two spaces; cells are cleaned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], indent = ''): string[] {
  const all = [header, ...rows].map((r) => r.map((c) => clean(c)));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) =>
    `${indent}${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd(),
  );
}
