// `rwx diff` output: the template changes between two revisions, storage and security first.
import type { TemplateChange } from '../domain/incident.js';
import { clean, table } from './terminal-text.js';

/** The changes as a table under a one-line header naming the DaemonSet and revisions. */
export function renderDiff(title: string, changes: readonly TemplateChange[]): string {
  if (changes.length === 0) return `${clean(title)}: no pod template change\n`;
  const rows = changes.map((c) => [c.category, c.container ?? '-', c.text]);
  return `${clean(title)}: ${changes.length} change${changes.length === 1 ? '' : 's'}\n${table(['CATEGORY', 'CONTAINER', 'CHANGE'], rows, '  ').join('\n')}\n`;
}
