// A plain fixed-width terminal table, shared by `rwx policy check` and `rwx gate`.

/** Formats rows under headers, columns padded to their widest cell and separated by two spaces; ends with "\n". */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}
