// /metrics of a real `rwx serve` (simulator over HTTP, real Redis, fake Slack): it passes `promtool check metrics`,
// keeps the standard process_* / nodejs_* names, names the build, starts every labelled series at 0, and counts
// what the run did (the root posted by verdict, its time from stuck to posted, evaluations, watches synced).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { WATCHED_KINDS } from '../../src/watch/watcher.js';
import { ServeMetrics, stuckSince } from '../../src/serve/metrics.js';
import { rolloutIncident } from '../render/incident-fixtures.js';
import { toolGate } from '../tools.js';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

const ROOT = join(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const promtool = toolGate('promtool', ['--version']);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The value of one series in Prometheus text, or undefined when absent. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** `promtool check metrics` on `text`: its complaints, empty when it passes. */
function promtoolProblems(text: string): string {
  try {
    execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    return '';
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    return `${err.stdout ?? ''}${err.stderr ?? ''}` || err.message;
  }
}

describe('ServeMetrics', () => {
  it('starts every labelled series at 0 and names the build', async () => {
    const text = await new ServeMetrics({ build: { version: '1.2.3', commit: 'abc1234' } }).registry.metrics();
    expect(value(text, 'rwx_build_info{version="1.2.3",commit="abc1234"}')).toBe(1);
    // Each case: a series that must exist before anything happened.
    for (const series of [
      'rwx_incidents_opened_total{verdict="FOLLOWS_ROLLOUT"}',
      'rwx_incidents_opened_total{verdict="NOT_STORAGE"}',
      'rwx_commands_total{command="drain",outcome="refused"}',
      'rwx_commands_total{command="usage",outcome="ok"}',
      'rwx_slack_calls_total{method="chat.postMessage",outcome="error"}',
      'rwx_findings{kind="cronjob-missed"}',
      'rwx_queue_depth{queue="notify"}',
      'rwx_evaluations_total{outcome="error"}',
      'rwx_stuck_to_posted_seconds_count',
      ...WATCHED_KINDS.flatMap((k) => [
        `rwx_watch_events_total{kind="${k}"}`,
        `rwx_watch_restarts_total{kind="${k}",reason="stalled"}`,
      ]),
    ]) {
      expect(value(text, series), series).toBe(0);
    }
  });

  it('rwx_watch_synced: a series per watched kind from the start, read again on every scrape', async () => {
    const m = new ServeMetrics();
    const status = [
      { kind: 'pods' as const, synced: false },
      { kind: 'nodes' as const, synced: true },
    ];
    m.watchStatusFrom(() => status);
    let text = await m.registry.metrics();
    expect(value(text, 'rwx_watch_synced{kind="pods"}')).toBe(0);
    expect(value(text, 'rwx_watch_synced{kind="nodes"}')).toBe(1);
    status[0]!.synced = true;
    text = await m.registry.metrics();
    expect(value(text, 'rwx_watch_synced{kind="pods"}')).toBe(1);
  });

  it('the notifier hook counts the verdict and observes the time from stuck to posted', async () => {
    const m = new ServeMetrics();
    const incident = rolloutIncident();
    const thresholds = { stuckAfterMs: 300_000, cronJobGraceMs: 600_000 };
    const since = stuckSince(incident, thresholds)!;
    m.notifier(thresholds).rootPosted?.(incident, since + 42_000);
    const text = await m.registry.metrics();
    expect(value(text, 'rwx_incidents_opened_total{verdict="FOLLOWS_ROLLOUT"}')).toBe(1);
    expect(value(text, 'rwx_stuck_to_posted_seconds_sum')).toBe(42);
    expect(value(text, 'rwx_stuck_to_posted_seconds_bucket{le="30"}')).toBe(0);
    expect(value(text, 'rwx_stuck_to_posted_seconds_bucket{le="45"}')).toBe(1);
  });

  it('stuckSince: the earliest member past its threshold, pods and CronJobs alike', () => {
    const i = rolloutIncident();
    const t = { stuckAfterMs: 300_000, cronJobGraceMs: 600_000 };
    const pods = i.pods.map((p) => Date.parse(p.since) + t.stuckAfterMs);
    const crons = i.cronJobs.map((c) => Date.parse(c.latestScheduled) + t.cronJobGraceMs);
    expect(stuckSince(i, t)).toBe(Math.min(...pods, ...crons));
    // no member says when: nothing to observe
    expect(stuckSince({ ...i, pods: [], cronJobs: [] }, t)).toBeUndefined();
    // an unparseable time is skipped, not allowed to poison the minimum
    const bad = { ...i, pods: i.pods.map((p, n) => (n === 0 ? { ...p, since: 'never' } : p)) };
    expect(stuckSince(bad, t)).toBe(Math.min(...pods.slice(1), ...crons));
  });

  it('evaluations: outcome counted, the last success stamped with the injected clock', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const m = new ServeMetrics({ clock });
    m.evaluated(false);
    expect(value(await m.registry.metrics(), 'rwx_last_successful_evaluation_timestamp_seconds')).toBe(0);
    m.evaluated(true);
    const text = await m.registry.metrics();
    expect(value(text, 'rwx_last_successful_evaluation_timestamp_seconds')).toBe(1_700_000_000);
    expect(value(text, 'rwx_evaluations_total{outcome="ok"}')).toBe(1);
    expect(value(text, 'rwx_evaluations_total{outcome="error"}')).toBe(1);
  });

  it('commands: counted by name and outcome', async () => {
    const m = new ServeMetrics();
    const observe = m.commandObserver();
    observe('triage', 'ok');
    observe('triage', 'ok');
    observe('status', 'refused');
    const text = await m.registry.metrics();
    expect(value(text, 'rwx_commands_total{command="triage",outcome="ok"}')).toBe(2);
    expect(value(text, 'rwx_commands_total{command="status",outcome="refused"}')).toBe(1);
  });
});

describe.runIf(promtool.run)(`/metrics of rwx serve${promtool.note}`, () => {
  it('passes promtool check metrics, with standard names, the build, and what the run did', async () => {
    promtool.check();
    h = await harness('scenarios/propagation-loss.yaml');
    const serve = await h.start();
    await h.advance(1_000); // past group_wait (200ms)
    await until(() => h!.slack.roots().length >= 1, 'the root post');
    // The root reaches Slack a moment before the bot counts it (after its record is written): scrape until then.
    const scrape = async () => {
      const r = await fetch(`http://127.0.0.1:${serve.port}/metrics`);
      return { type: r.headers.get('content-type'), text: await r.text() };
    };
    let last = await scrape();
    await until(async () => {
      last = await scrape();
      return value(last.text, 'rwx_stuck_to_posted_seconds_count') === 1;
    }, 'the posted root counted');
    expect(last.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = last.text;
    expect(promtoolProblems(text)).toBe('');

    // The default metrics keep their standard names: no prefix.
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).not.toMatch(/^rwx_(process|nodejs)_/m);
    expect(text).toMatch(
      new RegExp(`^rwx_build_info\\{version="${VERSION.replace(/\./g, '\\.')}",commit="[^"]+"\\} 1$`, 'm'),
    );

    // The run: one FOLLOWS_ROLLOUT root, its time from stuck to posted observed once, every kind synced.
    expect(value(text, 'rwx_incidents_opened_total{verdict="FOLLOWS_ROLLOUT"}')).toBe(1);
    expect(value(text, 'rwx_incidents_opened_total{verdict="FOLLOWS_NODE"}')).toBe(0);
    expect(value(text, 'rwx_stuck_to_posted_seconds_count')).toBe(1);
    expect(value(text, 'rwx_evaluations_total{outcome="ok"}')).toBeGreaterThan(0);
    expect(value(text, 'rwx_last_successful_evaluation_timestamp_seconds')).toBeGreaterThan(0);
    for (const k of WATCHED_KINDS) expect(value(text, `rwx_watch_synced{kind="${k}"}`), k).toBe(1);
    // One series per watched kind, and none for a kind the bot does not watch.
    expect(text.match(/^rwx_watch_synced\{/gm)?.length).toBe(WATCHED_KINDS.length);
  });
});
