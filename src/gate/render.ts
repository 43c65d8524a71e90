// The gate's output: a per-node table with a verdict line, or JSON. Pure.
import { table } from '../render/terminal-text.js';
import { formatTaken, type GateReport } from './run.js';

/** Exit code of a run: 0 every tested node passed, 2 any failed, 130 interrupted (after cleanup). */
export function gateExitCode(report: GateReport): number {
  if (report.interrupted) return 130;
  return report.results.some((r) => r.result === 'FAIL' || r.result === 'not run') ? 2 : 0;
}

/** The per-node table (node, mounted, wrote, read back, time taken, result) and a summary line. */
export function renderGateTable(report: GateReport): string {
  const rows = report.results.map((r) => [
    r.node,
    r.mounted,
    r.wrote,
    r.readBack,
    r.durationMs === undefined ? '-' : formatTaken(r.durationMs),
    r.detail ? `${r.result}: ${r.detail}` : r.result,
  ]);
  const tested = report.results.filter((r) => r.result === 'ok' || r.result === 'FAIL');
  const failed = report.results.filter((r) => r.result === 'FAIL');
  const lines = [
    table(['NODE', 'MOUNTED', 'WROTE', 'READ BACK', 'TIME', 'RESULT'], rows).join('\n'),
    '',
    `storage class ${report.storageClass}, namespace ${report.namespace}, run ${report.runId}: ` +
      `${tested.length - failed.length}/${tested.length} node(s) passed` +
      (failed.length ? `; FAILED: ${failed.map((r) => r.node).join(', ')}` : '') +
      (report.interrupted ? '; INTERRUPTED' : ''),
    `cleanup: deleted ${report.deleted.length} object(s)` +
      (report.leftovers.length
        ? `; could NOT delete ${report.leftovers.join(', ')} (run: rwx gate --cleanup -n ${report.namespace})`
        : ''),
  ];
  return `${lines.join('\n')}\n`;
}

/** The report as JSON. */
export function renderGateJson(report: GateReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
