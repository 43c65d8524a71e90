// /healthz, /readyz and /metrics of a running pipeline (fake cluster source, recording notifier), and the
// logger's redaction of secrets.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { RwxError } from '../../src/errors.js';
import { createWatcher, startServe, type RunningServe } from '../../src/serve/app.js';
import { createLogger, scrub } from '../../src/serve/log.js';
import { ServeMetrics } from '../../src/serve/metrics.js';
import { realSync } from '../../src/pipeline/sync.js';
import { FakeClusterSource } from '../support/fake-source.js';
import { ManualTimers } from '../../src/watch/timers.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';

let running: RunningServe | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const flush = () => new Promise<void>((r) => setImmediate(r));

async function start(source: FakeClusterSource, redisOk = true) {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const metrics = new ServeMetrics();
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(c: Buffer, _e, cb) {
        lines.push(c.toString());
        cb();
      },
    }) as never,
  );
  const watcher = createWatcher({
    source,
    project: (_k, o) => o,
    log,
    metrics,
    clock,
    timers: new ManualTimers(clock),
    watchIdleMs: 60_000,
    reflector: { backoffInitialMs: 1000 },
  });
  running = await startServe({
    watcher,
    log,
    metrics,
    clock,
    tickMs: 0,
    port: 0,
    sync: realSync({ stuckAfterMs: 300_000, cronJobGraceMs: 600_000, driverDaemonSets: {} }),
    notifier: { submit: async () => undefined, close: async () => undefined },
    checks: [{ name: 'redis', probe: () => (redisOk ? true : 'unreachable (ECONNREFUSED)') }],
  });
  const get = async (path: string) => {
    const r = await fetch(`http://127.0.0.1:${running!.port}${path}`);
    return { status: r.status, text: await r.text() };
  };
  return { get, metrics, lines };
}

describe('ops endpoints', () => {
  it('healthz is 200; readyz is 200 once synced with Redis up; metrics lists the bot metrics', async () => {
    const { get } = await start(new FakeClusterSource());
    await flush();
    expect((await get('/healthz')).status).toBe(200);
    expect(await get('/readyz')).toEqual({ status: 200, text: 'ready\n' });
    const m = (await get('/metrics')).text;
    for (const name of [
      'rwx_findings',
      'rwx_open_incidents',
      'rwx_slack_calls_total',
      'rwx_watch_restarts_total',
      'rwx_queue_depth',
      'rwx_kube_api_reachable',
    ]) {
      expect(m).toContain(name);
    }
    expect((await get('/nope')).status).toBe(404);
  });

  it('readyz is 503 naming the cause while the API is unreachable (logged once) or Redis is down', async () => {
    const source = new FakeClusterSource();
    source.failWith = new RwxError('KUBE_UNREACHABLE', 'cannot reach the API server (ECONNREFUSED)');
    const { get, lines } = await start(source, false);
    await flush();
    const r = await get('/readyz');
    expect(r.status).toBe(503);
    expect(r.text).toMatch(/watches: not synced/);
    expect(r.text).toMatch(/kubernetes: API server unreachable/);
    expect(r.text).toMatch(/redis: unreachable/);
    expect(lines.filter((l) => l.includes('unreachable'))).toHaveLength(1);
    expect((await get('/metrics')).text).toMatch(/rwx_kube_api_reachable 0/);
  });

  it('healthz turns 503 once shutdown begins', async () => {
    await start(new FakeClusterSource());
    const port = running!.port;
    const stopping = running!.stop();
    // The server closes during stop; a request racing it sees 503 or a refused connection, never 200.
    const r = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (x) => x.status,
      () => 503,
    );
    expect(r).toBe(503);
    await stopping;
    running = undefined;
  });

  it('counts Slack calls by method and outcome', async () => {
    const metrics = new ServeMetrics();
    const inner = new MemorySlack();
    const slack = metrics.countSlack(inner);
    await slack.postMessage({ channel: 'C1', text: 'x' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/rwx_slack_calls_total\{method="chat.postMessage",outcome="ok"\} 1/);
  });
});

describe('log redaction', () => {
  it.each([
    ['a Slack bot token in a message', 'posting with xoxb-1234-5678-abcdef failed', 'posting with [REDACTED] failed'],
    ['an app token', 'xapp-1-A0-123-abc', '[REDACTED]'],
    ['a password in a Redis URL', 'redis://user:hunter2@redis:6379/0', 'redis://user:[REDACTED]@redis:6379/0'],
    ['a bearer token', 'Authorization: Bearer sim-0123abcd', 'Authorization: Bearer [REDACTED]'],
  ])('%s', (_why, input, want) => {
    expect(scrub(input)).toBe(want);
  });

  it('redacts token fields by path and tokens inside any string field', () => {
    const lines: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(c: Buffer, _e, cb) {
          lines.push(c.toString());
          cb();
        },
      }) as never,
    );
    log.info(
      { config: { slack: { botToken: 'xoxb-secret-1' } }, err: 'invalid_auth for xoxb-secret-2' },
      'start xoxb-secret-3',
    );
    const out = lines.join('');
    expect(out).not.toMatch(/xoxb-secret/);
    expect(out).toContain('[REDACTED]');
  });
});
