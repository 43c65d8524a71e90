// `rwx drain-check` output: the decision, the one-line reason, and the steps.
import type { DrainAdvice } from '../domain/incident.js';
import { clean } from './terminal-text.js';

const HEADINGS: Record<DrainAdvice['decision'], string> = {
  BLOCK: 'Instead:',
  CAUTION: 'Watch for:',
  UNKNOWN: 'To get an answer:',
  OK: 'Before you drain:',
};

/** One line: "node-19  BLOCK  <reason>". */
export function renderDrainLine(d: DrainAdvice): string {
  return clean(`${d.node}  ${d.decision}  ${d.reason}`);
}

/** The full advice as text. */
export function renderDrainAdvice(d: DrainAdvice): string {
  const lines = [`${d.decision}: ${clean(d.node)}`, clean(d.reason)];
  if (d.steps.length > 0) {
    lines.push('', HEADINGS[d.decision]);
    d.steps.forEach((s, i) => lines.push(`  ${i + 1}. ${clean(s)}`));
  }
  return `${lines.join('\n')}\n`;
}
