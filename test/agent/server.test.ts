// `rwx agent` as a server: /report, /healthz, /metrics over real HTTP; one scan per burst of requests and per
// max age; a failed scan answers 503 and counts; the metrics pass `promtool check metrics` where promtool is
// installed. Then the whole command on the recorded node, read back through the bot's client.
import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fetchReport, reportUrl } from '../../src/agent/client.js';
import { AgentMetrics } from '../../src/agent/metrics.js';
import type { AgentReport } from '../../src/domain/node-report.js';
import { agentHandler, ReportCache } from '../../src/agent/server.js';
import { runAgent } from '../../src/cli/agent.js';
import { ManualClock } from '../../src/domain/clock.js';
import { closeServer, listen } from '../../src/serve/http.js';
import { toolGate } from '../tools.js';
import { lostReport } from './report-fixtures.js';
import { recordedNode } from './recorded-node.js';
import { until } from '../support/until.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((s) => s()));
});

async function start(scan: () => Promise<AgentReport>, clock = new ManualClock(1_700_000_000_000)) {
  const metrics = new AgentMetrics();
  const cache = new ReportCache(scan, clock, 5000, metrics);
  const { server, port } = await listen(agentHandler(cache, metrics), 0, '127.0.0.1');
  stops.push(() => closeServer(server));
  return { base: `http://127.0.0.1:${port}`, clock };
}

const promtool = toolGate('promtool', ['--version']);

describe('the agent HTTP server', () => {
  it('serves the report; a burst of requests shares one scan; a report older than the max age is rescanned', async () => {
    let scans = 0;
    const { base, clock } = await start(async () => {
      scans++;
      await new Promise((r) => setTimeout(r, 20));
      return lostReport('node-19');
    });
    const answers = await Promise.all([1, 2, 3].map(() => fetch(`${base}/report`)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[0]?.headers.get('content-type')).toBe('application/json');
    expect(((await answers[0]?.json()) as AgentReport).propagation.status).toBe('lost');
    expect(scans).toBe(1);
    clock.advance(4000);
    await fetch(`${base}/report`);
    expect(scans).toBe(1);
    clock.advance(1000);
    await fetch(`${base}/report`);
    expect(scans).toBe(2);
  });

  // Each case: method, path, status expected.
  it.each([
    ['GET', '/healthz', 200],
    ['POST', '/report', 405], // nothing but GET
    ['GET', '/', 404],
    ['GET', '/report/../etc', 404],
  ])('%s %s -> %i', async (method, path, status) => {
    const { base } = await start(async () => lostReport('n'));
    expect((await fetch(`${base}${path}`, { method })).status).toBe(status);
  });

  it('answers 503 when the scan throws, counts the failure, and scans again on the next request', async () => {
    let fail = true;
    const { base } = await start(async () => {
      if (fail) throw new Error('EMFILE: too many open files');
      return lostReport('n');
    });
    const r = await fetch(`${base}/report`);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ error: 'EMFILE: too many open files' });
    const m = await (await fetch(`${base}/metrics`)).text();
    expect(m).toMatch(/^rwx_agent_scan_failures_total 2$/m); // the scrape scanned again, and failed again
    fail = false;
    expect((await fetch(`${base}/report`)).status).toBe(200);
  });

  it('serves metrics set from the report', async () => {
    const { base } = await start(async () => lostReport('n'));
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/^rwx_agent_hidden_csi_mounts 3$/m);
    expect(text).toMatch(/^rwx_agent_propagation_status\{status="lost"\} 1$/m);
    expect(text).toMatch(/^rwx_agent_propagation_status\{status="ok"\} 0$/m);
    expect(text).toMatch(/^rwx_agent_mount_namespaces 14$/m);
    expect(text).toMatch(/^rwx_agent_scans_total 1$/m);
  });

  it.runIf(promtool.run)(`passes promtool check metrics${promtool.note}`, async () => {
    promtool.check();
    const { base } = await start(async () => lostReport('n'));
    const text = await (await fetch(`${base}/metrics`)).text();
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('rwx agent (server mode) on the recorded node, read by the bot client', () => {
  const node = recordedNode();
  afterAll(node.remove);

  it('serves a report the client validates', async () => {
    let stderr = '';
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((r) => (stop = r));
    const io = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => ((stderr += s), true) },
      stdin: Readable.from([]),
      env: { NODE_NAME: 'node-19' },
    };
    const args = ['--port', '0', '--proc', node.PROC, '--kubelet-dir', node.K];
    const done = runAgent(args, io, stopped);
    await until(() => /on port \d+/.test(stderr), 'the agent serving');
    const port = Number(/on port (\d+)/.exec(stderr)?.[1]);
    expect(stderr).toBe(`rwx agent: node node-19, serving GET /report, /healthz, /metrics on port ${port}\n`);
    const { report } = await fetchReport(reportUrl('127.0.0.1', port));
    expect(report).toMatchObject({
      node: 'node-19',
      propagation: { status: 'lost' },
      stagedVolumes: { status: 'orphaned' },
    });
    stop();
    expect(await done).toBe(0);
  });

  it('rejects flags that do not go together', async () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: Readable.from([]), env: {} };
    await expect(runAgent(['-o', 'json'], io)).rejects.toThrow(/-o applies to --once/);
    await expect(runAgent(['--once', '--port', '1'], io)).rejects.toThrow(/--port applies to the server/);
    await expect(runAgent(['--once', '--host-pid', '0'], io)).rejects.toThrow(
      /--host-pid: 0 is not a whole number from 1 to 4194304/,
    );
  });
});
