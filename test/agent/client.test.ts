// The bot's agent client against real HTTP servers: valid reports, reports from an older or newer agent, answers
// that are not reports, too large, slow, refused. Each failure must carry its code.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchReport, parseReport, reportUrl } from '../../src/agent/client.js';
import { RwxError, type ErrorCode } from '../../src/errors.js';
import { healthyReport } from './report-fixtures.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))),
  );
});

/** Serves one handler on a free port; returns the /report URL. */
async function serve(handler: (res: ServerResponse) => void): Promise<string> {
  const s = createServer((_req, res) => handler(res));
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return reportUrl('127.0.0.1', (s.address() as AddressInfo).port);
}
const json =
  (body: unknown, status = 200) =>
  (res: ServerResponse) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

async function failure(p: Promise<unknown>): Promise<{ code: ErrorCode; message: string; retryable: boolean }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RwxError) return { code: e.code, message: e.message, retryable: e.retryable };
    throw e;
  }
  throw new Error('expected a failure');
}

describe('fetchReport', () => {
  it('reads a valid report', async () => {
    const url = await serve(json(healthyReport('node-19')));
    const r = await fetchReport(url);
    expect(r).toEqual({ report: healthyReport('node-19'), url });
  });

  it('reads a newer agent whose additions are compatible, dropping the fields it does not know, with a note', async () => {
    const newer = {
      ...healthyReport('node-19'),
      schemaVersion: 2,
      kernel: '6.8',
      propagation: { ...healthyReport('node-19').propagation, extra: 1 },
    };
    const r = await fetchReport(await serve(json(newer)));
    expect(r.note).toBe('agent report schema 2 is newer than this bot reads (1): read as 1, new fields ignored');
    expect(r.report).not.toHaveProperty('kernel');
    expect(r.report.propagation).not.toHaveProperty('extra');
  });

  // Each case: what the agent answers, the code, the message expected.
  it.each([
    [
      { ...healthyReport('n'), schemaVersion: 2, propagation: 'moved' },
      'AGENT_VERSION',
      /schema 2, newer than this bot reads \(1\), and propagation changed: upgrade the bot$/,
    ], // incompatible newer
    [
      { ...healthyReport('n'), schemaVersion: 0 },
      'AGENT_VERSION',
      /writes report schema 0; this bot reads 1 to 1: upgrade the agent$/,
    ], // older than we read
    [{ ...healthyReport('n'), kind: 'Status' }, 'AGENT_REPORT', /is not an rwx agent report$/], // something else answered
    [{ ...healthyReport('n'), schemaVersion: '1' }, 'AGENT_REPORT', /has no schemaVersion$/],
    [
      { ...healthyReport('n'), stagedVolumes: { status: 'maybe', volumes: [] } },
      'AGENT_REPORT',
      /is malformed: stagedVolumes\.status: /,
    ], // fails the schema
    ['{"kind": "RwxAgentReport"', 'AGENT_REPORT', /is not JSON$/],
  ] as const)('case %#: %s', async (body, code, message) => {
    const f = await failure(fetchReport(await serve(json(body))));
    expect(f.code).toBe(code);
    expect(f.message).toMatch(message);
    expect(f.retryable).toBe(false);
  });

  it('refuses a report larger than the cap, whether declared or streamed', async () => {
    const big = JSON.stringify({ ...healthyReport('n'), problems: ['x'.repeat(5000)] });
    const declared = await failure(fetchReport(await serve(json(big)), { maxBytes: 1000 }));
    expect(declared).toMatchObject({ code: 'AGENT_REPORT', message: expect.stringMatching(/larger than 1000 bytes$/) });
    const streamed = await serve((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked, no Content-Length
      res.write(big.slice(0, 800));
      res.end(big.slice(800));
    });
    expect(await failure(fetchReport(streamed, { maxBytes: 1000 }))).toMatchObject({ code: 'AGENT_REPORT' });
  });

  it('reports an HTTP error status, retryable when the agent failed (5xx)', async () => {
    const f = await failure(fetchReport(await serve(json({ error: 'scan failed: EMFILE' }, 503))));
    expect(f).toEqual({
      code: 'AGENT_REPORT',
      message: expect.stringMatching(/answered HTTP 503: \{"error":"scan failed: EMFILE"\}$/),
      retryable: true,
    });
  });

  it('times out on an agent that never answers', async () => {
    const url = await serve(() => undefined);
    const f = await failure(fetchReport(url, { timeoutMs: 100 }));
    expect(f).toEqual({
      code: 'TIMEOUT',
      message: `the agent at ${url} did not answer within 100 ms`,
      retryable: true,
    });
  });

  it('says the agent is unreachable when nothing listens', async () => {
    const url = await serve(json({}));
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
    const f = await failure(fetchReport(url));
    expect(f).toEqual({
      code: 'AGENT_UNREACHABLE',
      message: `cannot reach the agent at ${url} (ECONNREFUSED)`,
      retryable: true,
    });
  });
});

describe('reportUrl and parseReport', () => {
  it('brackets IPv6 pod IPs', () => {
    expect(reportUrl('10.244.1.7', 9743)).toBe('http://10.244.1.7:9743/report');
    expect(reportUrl('fd00::7', 9743)).toBe('http://[fd00::7]:9743/report');
  });
  it('rejects a non-object', () => {
    expect(() => parseReport(null, 'u')).toThrow(/the answer from u is not an rwx agent report/);
  });
});
