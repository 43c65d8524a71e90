// Renderers for the triage report: a terminal table grouped by phase (OK last) and
// the stable JSON of docs/triage-json.md.
import { formatAge } from '../domain/duration.js';
import type { ClaimReport, TriageReport } from './types.js';

/** The report as pretty-printed JSON (schema: docs/triage-json.md), newline-terminated. */
export function renderJson(r: TriageReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

/** Which time ages are measured against, when it is not the clock: said first, so no age is misread. */
export function timeNote(r: TriageReport): string {
  return r.timeBasis === 'snapshot'
    ? `Ages as of ${r.generatedAt}, the newest time recorded in the snapshot (--now TIME to measure against another).`
    : `Ages as of ${r.generatedAt} (--now).`;
}

/** Options of the terminal table; `wide` is `-o wide`. */
export interface TableOptions {
  /** Adds the columns STORAGECLASS, DRIVER, VOLUME and NODES (the nodes of the claim's evidence) to each claim line. */
  wide?: boolean;
}

/**
 * The report as a terminal table: preflight, then claims grouped by phase, then the count needing attention.
 * Wide, a header names the columns; the data are the report's own fields, nothing is recomputed.
 */
export function renderTable(r: TriageReport, opts: TableOptions = {}): string {
  const out: string[] = [];
  const filters = [
    r.filters.namespace && `namespace ${r.filters.namespace}`,
    r.filters.driver && `driver ${r.filters.driver}`,
  ].filter(Boolean);
  if (r.timeBasis !== 'clock') out.push(`${timeNote(r)}\n`);
  out.push(`PREFLIGHT${filters.length ? ` (${filters.join(', ')})` : ''}`);
  const access = r.preflight.filter((p) => p.check === 'access');
  const accessOk = access.filter((p) => p.status === 'ok');
  if (accessOk.length === access.length)
    out.push(`    ${'access'.padEnd(10)} ${'ok'.padEnd(8)} all ${access.length} resources readable`);
  for (const p of r.preflight) {
    if (p.check === 'access' && p.status === 'ok') continue;
    const subject = p.check === 'access' ? p.subject : `${p.subject}:`;
    out.push(`    ${p.check.padEnd(10)} ${p.status.padEnd(8)} ${subject} ${p.detail}`);
  }
  if (!r.preflight.some((p) => p.check !== 'access'))
    out.push('    (no driver in use: no CSIDriver, CSINode or leader checks)');
  out.push('', ...nodeProofLines(r), '');
  out.push(`RWX claims examined: ${r.summary.claimsExamined}`);
  out.push('');
  const wide = opts.wide ? wideClaimLine(r.claims) : undefined;
  const claimLine = (c: ClaimReport) => (wide ? wide(c) : `${claimName(c).padEnd(52)} ${c.detail}`);
  if (wide && r.claims.length > 0) out.push(`    ${wide(undefined)}`);
  let phase: string | undefined;
  for (const c of r.claims) {
    if (c.phase !== phase) {
      if (phase !== undefined) out.push('');
      phase = c.phase;
      out.push(`[${phase}]`);
    }
    out.push(`    ${claimLine(c)}`);
    if (c.phase !== 'OK') out.push(...evidenceLines(c));
  }
  if (phase !== undefined) out.push('');
  if (r.undecided.length) {
    out.push('NOT DECIDED');
    for (const u of r.undecided) out.push(`    ${u}`);
    out.push('');
  }
  out.push(`claims needing attention: ${r.summary.claimsNeedingAttention}`);
  if (r.summary.preflightProblems) out.push(`preflight problems: ${r.summary.preflightProblems}`);
  if (r.summary.nodeProofFindings) out.push(`node proof findings: ${r.summary.nodeProofFindings}`);
  return `${out.join('\n')}\n`;
}

/** The node proof section: what the agents found beyond the claims' phases, and where no agent could say. */
export function nodeProofLines(r: TriageReport): string[] {
  const p = r.nodeProof;
  const answered = p.nodesAsked > 0 ? ` (${p.reports} of ${p.nodesAsked} node agents answered)` : '';
  const lines = [
    ...p.findings.map((f) => `    ${f.text}${f.claim ? ` (claim ${f.claim})` : ''}`),
    ...p.unavailable.map((u) => `    ${u}`),
  ];
  if (lines.length === 0) lines.push("    nothing beyond the claims' evidence below");
  return [`NODE PROOF${answered}`, ...lines];
}

function claimName(c: ClaimReport): string {
  return `${c.namespace}/${c.name}`;
}

/** The wide columns of a claim, '-' where the report has no value. */
function wideCells(c: ClaimReport): string[] {
  const nodes = c.evidence.nodes.map((n) => n.name).join(',');
  return [claimName(c), c.storageClass ?? '-', c.driver ?? '-', c.volume ?? '-', nodes || '-'];
}

const WIDE_HEADER = ['CLAIM', 'STORAGECLASS', 'DRIVER', 'VOLUME', 'NODES'];

/** Lays out the wide columns over every claim (widths from all of them); undefined gives the header line. */
function wideClaimLine(claims: readonly ClaimReport[]): (c: ClaimReport | undefined) => string {
  const rows = claims.map(wideCells);
  const widths = WIDE_HEADER.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[], last: string) =>
    `${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}  ${last}`;
  return (c) => (c ? line(wideCells(c), c.detail) : line(WIDE_HEADER, 'DETAIL'));
}

function evidenceLines(c: ClaimReport): string[] {
  const pad = ' '.repeat(8);
  const lines: string[] = [];
  for (const e of c.evidence.events) {
    const age = e.ageSeconds === undefined ? '' : `, ${formatAge(e.ageSeconds * 1000)} ago`;
    lines.push(`${pad}event  ${e.reason} x${e.count}${age} on ${e.object}: ${e.message}`);
  }
  for (const n of c.evidence.nodes) {
    const reg =
      n.driverRegistered === null ? '' : n.driverRegistered ? ' driver registered' : ' DRIVER NOT REGISTERED (CSINode)';
    lines.push(`${pad}node   ${n.name}${n.exists === false ? ' (node object gone)' : ''}${reg}`);
  }
  for (const h of c.evidence.holds) lines.push(`${pad}mount  ${h.text}`);
  for (const s of c.evidence.stages) lines.push(`${pad}stage  ${s.path} on ${s.node}, no pod bind mount`);
  for (const a of c.evidence.attachments) {
    lines.push(
      `${pad}attach ${a.name} on ${a.node}${a.deleting ? ' (deleting)' : ''}${a.detachError ? `: ${a.detachError}` : ''}`,
    );
  }
  c.advice.forEach((s, i) => lines.push(`${pad}${i === 0 ? 'next' : '    '}   ${s}`));
  return lines;
}
