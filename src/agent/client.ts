// The bot's side of the agent: fetch /report from an agent (a pod IP and port, or any URL), with a timeout and a
// size cap, and validate it against the report schema. Every failure is an RwxError with a code, so callers can
// say "the proof is unavailable because ..." without reading message text.
import { RwxError } from '../errors.js';
import { REPORT_KIND, REPORT_SCHEMA_VERSION, type AgentReport } from '../domain/node-report.js';
import { reportSchema } from './report.js';

/** Default time allowed for one /report request (connect, scan, transfer). */
export const REPORT_TIMEOUT_MS = 5000;
/** Default largest report accepted: a node with thousands of volumes stays well below it. */
export const REPORT_MAX_BYTES = 4 * 1024 * 1024;
/** The oldest report schema this bot reads. */
export const MIN_SCHEMA_VERSION = 1;

/** A validated report and, when the agent's schema is newer than ours, a note saying so. */
export interface FetchedReport {
  report: AgentReport;
  url: string;
  note?: string;
}

/** The /report URL of an agent at `ip` (IPv4 or IPv6) and `port`. */
export function reportUrl(ip: string, port: number): string {
  return `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}/report`;
}

/** Validates an answer as a report. Throws AGENT_REPORT (not a report) or AGENT_VERSION (a schema we cannot read). */
export function parseReport(body: unknown, url: string): Omit<FetchedReport, 'url'> {
  const o = body as { kind?: unknown; schemaVersion?: unknown } | null;
  if (!o || typeof o !== 'object' || o.kind !== REPORT_KIND)
    throw new RwxError('AGENT_REPORT', `the answer from ${url} is not an rwx agent report`);
  const v = o.schemaVersion;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new RwxError('AGENT_REPORT', `the report from ${url} has no schemaVersion`);
  if (v < MIN_SCHEMA_VERSION) {
    const reads = `this bot reads ${MIN_SCHEMA_VERSION} to ${REPORT_SCHEMA_VERSION}`;
    throw new RwxError('AGENT_VERSION', `the agent at ${url} writes report schema ${v}; ${reads}: upgrade the agent`);
  }
  const parsed = reportSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the report';
    if (v > REPORT_SCHEMA_VERSION) {
      const newer = `report schema ${v}, newer than this bot reads (${REPORT_SCHEMA_VERSION})`;
      throw new RwxError('AGENT_VERSION', `the agent at ${url} writes ${newer}, and ${where} changed: upgrade the bot`);
    }
    throw new RwxError('AGENT_REPORT', `the report from ${url} is malformed: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  if (v > REPORT_SCHEMA_VERSION) {
    const ours = REPORT_SCHEMA_VERSION;
    const note = `agent report schema ${v} is newer than this bot reads (${ours}): read as ${ours}, new fields ignored`;
    return { report: parsed.data, note };
  }
  return { report: parsed.data };
}

const causeCode = (e: unknown): string => {
  const c = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof c?.code === 'string') return c.code;
  if (typeof c?.message === 'string') return c.message;
  return e instanceof Error ? e.message : String(e);
};

/** Fetches and validates the report at `url`. Throws TIMEOUT, AGENT_UNREACHABLE, AGENT_REPORT or AGENT_VERSION. */
export async function fetchReport(
  url: string,
  opts: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<FetchedReport> {
  const timeoutMs = opts.timeoutMs ?? REPORT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? REPORT_MAX_BYTES;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  try {
    const res = await fetch(url, { signal: ac.signal, headers: { accept: 'application/json' }, redirect: 'error' });
    const text = await readCapped(res, maxBytes, url, ac);
    if (res.status !== 200) {
      const msg = `the agent at ${url} answered HTTP ${res.status}: ${text.split('\n')[0]?.slice(0, 200) ?? ''}`;
      throw new RwxError('AGENT_REPORT', msg, { retryable: res.status >= 500 });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RwxError('AGENT_REPORT', `the answer from ${url} is not JSON`);
    }
    return { ...parseReport(body, url), url };
  } catch (e) {
    if (e instanceof RwxError) throw e;
    if (ac.signal.aborted)
      throw new RwxError('TIMEOUT', `the agent at ${url} did not answer within ${timeoutMs} ms`, { cause: e });
    throw new RwxError('AGENT_UNREACHABLE', `cannot reach the agent at ${url} (${causeCode(e)})`, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(res: Response, maxBytes: number, url: string, ac: AbortController): Promise<string> {
  const tooLarge = () => new RwxError('AGENT_REPORT', `the answer from ${url} is larger than ${maxBytes} bytes`);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    ac.abort();
    throw tooLarge();
  }
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      ac.abort();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
