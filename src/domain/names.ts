// Lists of names in prose: node lists in next steps, summaries and drain advice all cut them the same way.

/** How many names a list shows before "...and N more". */
export const MAX_NAMES = 30;

/** Names joined with `sep` (a space by default), "...and N more" past `max`. */
export function nameList(names: readonly string[], max = MAX_NAMES, sep = ' '): string {
  if (names.length <= max) return names.join(sep);
  return `${names.slice(0, max).join(sep)} ...and ${names.length - max} more`;
}
