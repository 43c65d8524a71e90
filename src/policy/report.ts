// Turning checked manifests into results and printing them as a table or JSON. Pure.
import { objectKey } from '../domain/refs.js';
import { checkObject, type ViolationRule } from './check.js';
import type { ManifestObject } from './manifests.js';
import { table } from '../render/terminal-text.js';

/** One line of the report: a failed mount, a passing mount, a skipped plugin, or a file that could not be read. */
export type PolicyResult =
  | ({ result: 'fail'; rule: ViolationRule; fix: string } & Located & MountFields)
  | ({ result: 'ok' } & Located & Required<Pick<MountFields, 'container' | 'volumeMount'>> & MountFields)
  | ({ result: 'skip'; reason: string } & Located)
  | { result: 'error'; file: string; message: string };

interface Located {
  file: string;
  /** 1-based line of the object's document; 0 when read from the cluster. */
  line: number;
  kind: string;
  namespace?: string;
  name: string;
}

interface MountFields {
  container?: string;
  volumeMount?: string;
  hostPath?: string;
  mountPath?: string;
  propagation?: string;
}

/** The whole report: results in input order and counts. Exit code: 1 if any error, else 2 if any failure, else 0. */
export interface PolicyReport {
  summary: { files: number; plugins: number; violations: number; skipped: number; errors: number };
  results: PolicyResult[];
}

/** Checks every object and builds the report; `errors` are files that could not be read (each counted as a file). */
export function buildReport(
  objects: readonly ManifestObject[],
  errors: readonly { file: string; message: string }[],
  files: number,
): PolicyReport {
  const results: PolicyResult[] = [];
  let plugins = 0;
  for (const { source, line, object } of objects) {
    const verdict = checkObject(object);
    if (verdict.status === 'ignored') continue;
    const where: Located = { file: source, line, kind: object.kind ?? '', name: object.metadata?.name ?? '' };
    if (object.metadata?.namespace) where.namespace = object.metadata.namespace;
    if (verdict.status === 'skipped') {
      results.push({ result: 'skip', ...where, reason: verdict.reason });
      continue;
    }
    plugins++;
    for (const v of verdict.violations) results.push({ result: 'fail', ...where, ...v });
    if (verdict.violations.length === 0) for (const m of verdict.mounts) results.push({ result: 'ok', ...where, ...m });
  }
  for (const e of errors) results.push({ result: 'error', ...e });
  const count = (r: PolicyResult['result']) => results.filter((x) => x.result === r).length;
  return {
    summary: { files, plugins, violations: count('fail'), skipped: count('skip'), errors: errors.length },
    results,
  };
}

/** The exit code for a report: 1 when something could not be checked, 2 on violations, else 0. */
export function exitCodeOf(report: PolicyReport): number {
  if (report.summary.errors > 0) return 1;
  return report.summary.violations > 0 ? 2 : 0;
}

/** The terminal table with a one-line summary underneath; `cluster`: the plugins were read from the cluster, not files. */
export function renderTable(report: PolicyReport, opts: { cluster?: boolean } = {}): string {
  const rows = report.results.map((r) => {
    if (r.result === 'error') return ['ERROR', r.file, '-', '-', '-', r.message];
    const object = `${r.kind} ${objectKey({ metadata: { name: r.name, namespace: r.namespace } })}`;
    const file = r.line > 0 ? `${r.file}:${r.line}` : r.file;
    if (r.result === 'skip') return ['skip', file, object, '-', '-', r.reason];
    if (r.result === 'ok')
      return ['ok', file, object, r.container, r.volumeMount, `hostPath ${r.hostPath} ${r.propagation}`];
    const detail =
      r.rule === 'NOT_BIDIRECTIONAL'
        ? `hostPath ${r.hostPath} has propagation ${r.propagation}: ${r.fix}`
        : `no plugin container mounts the kubelet pods dir Bidirectional: ${r.fix}`;
    return ['FAIL', file, object, r.container ?? '-', r.volumeMount ?? '-', detail];
  });
  const s = report.summary;
  const summary = opts.cluster
    ? `${s.plugins} CSI node plugin(s) checked in the cluster: ${s.violations} violation(s), ${s.skipped} Windows plugin(s) skipped\n`
    : `${s.plugins} CSI node plugin(s) checked in ${s.files} file(s): ${s.violations} violation(s), ` +
      `${s.skipped} Windows plugin(s) skipped, ${s.errors} file(s) unreadable\n`;
  if (rows.length === 0) return `no CSI node plugins found\n${summary}`;
  return `${table(['RESULT', 'FILE', 'OBJECT', 'CONTAINER', 'VOLUMEMOUNT', 'DETAIL'], rows).join('\n')}\n${summary}`;
}

/** The report as pretty JSON (stable field names; see docs/policy.md). */
export function renderJson(report: PolicyReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
