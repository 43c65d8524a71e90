// The chart's monitoring objects (monitoring-values.yaml): the ServiceMonitor scrapes the bot's Service; the
// PrometheusRule passes `promtool check rules`, each alert fires when (and only when) its condition holds
// (`promtool test rules` on synthetic series), names its heading in docs/alerts.md, and uses only metrics the bot
// exports; the Grafana dashboard too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { ServeMetrics } from '../../src/serve/metrics.js';
import { anchors } from '../deploy/anchors.js';
import type { K8sObject } from '../deploy/manifests.js';
import { toolGate } from '../tools.js';
import { HELM, find, template } from './helm.js';

const promtool = toolGate('promtool', ['--version']);

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
type Group = { name: string; rules: Rule[] };

/** Metric names an expression uses (ours and the standard ones), histogram suffixes removed. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\b((?:rwx|process|nodejs)_[a-z0-9_]+|up)\b/g)].map((m) =>
    (m[1] ?? '').replace(/_(bucket|sum|count)$/, ''),
  );
}

/** Every metric name `rwx serve` exports (its registry, process metrics on), plus Prometheus's own `up`. */
async function exported(): Promise<Set<string>> {
  const json = await new ServeMetrics({ processMetrics: true }).registry.getMetricsAsJSON();
  return new Set([...json.map((m) => m.name), 'up']);
}

interface ExpAlert {
  exp_labels: Record<string, string>;
  /** How the alert's value reads in its annotations ({{ $value }}, or humanizePercentage of it). */
  value?: string;
}
interface UnitTest {
  interval: string;
  input_series: { series: string; values: string }[];
  alert_rule_test: { eval_time: string; alertname: string; exp_alerts: ExpAlert[] }[];
}

/** A rule's annotations as Prometheus expands them for an alert with these labels and value. */
function expand(annotations: Record<string, string>, a: ExpAlert): Record<string, string> {
  return Object.fromEntries(
    Object.entries(annotations).map(([k, v]) => [
      k,
      v
        .replace(/\{\{ \$labels\.(\w+) \}\}/g, (_m, l: string) => a.exp_labels[l] ?? '')
        .replace(/\{\{ \$value( \| humanizePercentage)? \}\}/g, a.value ?? ''),
    ]),
  );
}

/** The unit tests with each expected alert's annotations filled in from the rendered rules. */
function withAnnotations(tests: UnitTest[], rules: Rule[]): unknown[] {
  return tests.map((t) => ({
    ...t,
    alert_rule_test: t.alert_rule_test.map((c) => ({
      ...c,
      exp_alerts: c.exp_alerts.map((a) => ({
        exp_labels: a.exp_labels,
        exp_annotations: expand(rules.find((r) => r.alert === c.alertname)?.annotations ?? {}, a),
      })),
    })),
  }));
}

function promtoolRun(args: string[], cwd: string): { status: number; out: string } {
  const r = spawnSync('promtool', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

// Series of one bot pod, as the ServiceMonitor's scrape labels them.
const POD = 'job="rwx",namespace="rwx",pod="rwx-0"';
/** The alerts each case expects at each time (minutes), given input series: promtool's unit test format. */
const UNIT_TESTS: UnitTest[] = [
  {
    // Down for 6 minutes, then gone entirely: both fire (for: 5m).
    interval: '1m',
    input_series: [{ series: `up{${POD},instance="10.0.0.1:3000"}`, values: '1 1 0x10' }],
    alert_rule_test: [
      { eval_time: '4m', alertname: 'RwxDown', exp_alerts: [] },
      {
        eval_time: '8m',
        alertname: 'RwxDown',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', job: 'rwx', namespace: 'rwx', pod: 'rwx-0', instance: '10.0.0.1:3000' },
          },
        ],
      },
    ],
  },
  {
    interval: '1m',
    input_series: [],
    alert_rule_test: [
      {
        eval_time: '6m',
        alertname: 'RwxDown',
        exp_alerts: [{ exp_labels: { severity: 'warning', job: 'rwx', namespace: 'rwx' } }],
      },
    ],
  },
  {
    interval: '1m',
    input_series: [
      { series: `rwx_kube_api_reachable{${POD}}`, values: '1 1 0x10' },
      { series: `rwx_watch_synced{${POD},kind="pods"}`, values: '0x15' },
      { series: `rwx_watch_synced{${POD},kind="nodes"}`, values: '1x15' },
      { series: `rwx_queue_depth{${POD},queue="notify"}`, values: '500x20' },
      { series: `rwx_queue_depth{${POD},queue="work"}`, values: '0x20' },
    ],
    alert_rule_test: [
      { eval_time: '4m', alertname: 'RwxKubeApiUnreachable', exp_alerts: [] },
      {
        eval_time: '8m',
        alertname: 'RwxKubeApiUnreachable',
        exp_alerts: [{ exp_labels: { severity: 'warning', namespace: 'rwx', pod: 'rwx-0' } }],
      },
      { eval_time: '9m', alertname: 'RwxWatchesNotSynced', exp_alerts: [] },
      {
        eval_time: '11m',
        alertname: 'RwxWatchesNotSynced',
        exp_alerts: [{ exp_labels: { severity: 'warning', namespace: 'rwx', pod: 'rwx-0' } }],
      },
      {
        eval_time: '16m',
        alertname: 'RwxQueueBacklog',
        exp_alerts: [
          { exp_labels: { severity: 'warning', namespace: 'rwx', pod: 'rwx-0', queue: 'notify' }, value: '500' },
        ],
      },
    ],
  },
  {
    // 10 failures a minute against 1 success: failing; the healthy pod (1 failure in 10) is not.
    interval: '1m',
    input_series: [
      { series: `rwx_slack_calls_total{${POD},method="chat.postMessage",outcome="error"}`, values: '0+10x40' },
      { series: `rwx_slack_calls_total{${POD},method="chat.postMessage",outcome="ok"}`, values: '0+1x40' },
      {
        series: 'rwx_slack_calls_total{job="rwx",namespace="rwx",pod="rwx-1",method="chat.update",outcome="error"}',
        values: '0+1x40',
      },
      {
        series: 'rwx_slack_calls_total{job="rwx",namespace="rwx",pod="rwx-1",method="chat.update",outcome="ok"}',
        values: '0+9x40',
      },
    ],
    alert_rule_test: [
      {
        eval_time: '25m',
        alertname: 'RwxSlackCallsFailing',
        exp_alerts: [{ exp_labels: { severity: 'warning', namespace: 'rwx', pod: 'rwx-0' }, value: '90.91%' }],
      },
    ],
  },
  {
    // rwx-0 never evaluated since it started at 0; rwx-1 evaluates every minute; rwx-2 started recently.
    interval: '1m',
    input_series: [
      { series: `process_start_time_seconds{${POD}}`, values: '0x20' },
      { series: `rwx_last_successful_evaluation_timestamp_seconds{${POD}}`, values: '0x20' },
      { series: 'process_start_time_seconds{job="rwx",namespace="rwx",pod="rwx-1"}', values: '0x20' },
      {
        series: 'rwx_last_successful_evaluation_timestamp_seconds{job="rwx",namespace="rwx",pod="rwx-1"}',
        values: '0+60x20',
      },
      { series: 'process_start_time_seconds{job="rwx",namespace="rwx",pod="rwx-2"}', values: '600x20' },
      {
        series: 'rwx_last_successful_evaluation_timestamp_seconds{job="rwx",namespace="rwx",pod="rwx-2"}',
        values: '0x20',
      },
    ],
    alert_rule_test: [
      { eval_time: '9m', alertname: 'RwxNoSuccessfulEvaluation', exp_alerts: [] },
      {
        eval_time: '11m',
        alertname: 'RwxNoSuccessfulEvaluation',
        exp_alerts: [{ exp_labels: { severity: 'warning', namespace: 'rwx', pod: 'rwx-0' } }],
      },
    ],
  },
];

describe.runIf(HELM.run)(`chart monitoring objects${HELM.note}`, () => {
  let objs: K8sObject[] = [];
  let groups: Group[] = [];
  beforeAll(() => {
    HELM.check();
    objs = template(['ci/monitoring-values.yaml']);
    groups = (find(objs, 'PrometheusRule', 'rwx')?.spec as { groups: Group[] }).groups;
  });
  const rules = () => groups.flatMap((g) => g.rules);

  it('are off by default', () => {
    const plain = template(['ci/socket-mode-values.yaml']);
    expect(plain.filter((o) => ['ServiceMonitor', 'PrometheusRule'].includes(o.kind))).toEqual([]);
    expect(find(plain, 'ConfigMap', 'rwx-dashboard')).toBeUndefined();
  });

  it("the ServiceMonitor selects the bot's Service and scrapes its http port at /metrics", () => {
    const sm = find(objs, 'ServiceMonitor', 'rwx')!;
    const svc = find(objs, 'Service', 'rwx')!;
    const spec = sm.spec as { selector: { matchLabels: object }; endpoints: { port: string; path: string }[] };
    expect(svc.metadata.labels).toMatchObject(spec.selector.matchLabels);
    expect(spec.endpoints).toEqual([{ port: 'http', path: '/metrics', interval: '30s' }]);
    expect((svc.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toContain('http');
    expect(sm.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
  });

  it('alerts on the bot itself: down, API unreachable, watches not synced, Slack failing, backlog, no evaluation', () => {
    expect(rules().map((r) => r.alert)).toEqual([
      'RwxDown',
      'RwxKubeApiUnreachable',
      'RwxWatchesNotSynced',
      'RwxSlackCallsFailing',
      'RwxQueueBacklog',
      'RwxNoSuccessfulEvaluation',
    ]);
  });

  it('each alert has a runbook: its heading in docs/alerts.md, and the URL under runbookBaseUrl', () => {
    const headings = anchors('docs/alerts.md');
    for (const r of rules()) {
      const anchor = r.alert.toLowerCase();
      expect(headings.has(anchor), `docs/alerts.md has no heading ${r.alert}`).toBe(true);
      expect(r.annotations.runbook).toBe(`docs/alerts.md#${anchor} (in the rwx repository)`);
      expect(r.annotations.runbook_url).toBe(`https://git.example.com/platform/rwx/blob/main/docs/alerts.md#${anchor}`);
      expect(r.annotations.summary).toBeTruthy();
    }
  });

  it('uses only metrics the bot exports', async () => {
    const names = await exported();
    const used = rules().flatMap((r) => metricNames(r.expr));
    expect(used.length).toBeGreaterThan(6);
    expect(used.filter((n) => !names.has(n))).toEqual([]);
  });

  it('the Grafana dashboard: a ConfigMap with the sidecar label, valid JSON, only metrics the bot exports', async () => {
    const cm = find(objs, 'ConfigMap', 'rwx-dashboard')!;
    expect(cm.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const dash = JSON.parse((cm.data as Record<string, string>)['rwx.json'] ?? '') as {
      uid: string;
      panels: { type: string; targets?: { expr: string }[] }[];
    };
    expect(dash.uid).toBe('rwx-bot');
    const exprs = dash.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    const names = await exported();
    const used = exprs.flatMap(metricNames);
    expect(used.filter((n) => !names.has(n))).toEqual([]);
    // Every rwx metric is on the dashboard.
    expect([...names].filter((n) => n.startsWith('rwx_') && !used.includes(n))).toEqual([]);
  });

  describe.runIf(promtool.run)(`with promtool${promtool.note}`, () => {
    it('promtool check rules passes on the rendered group, and each alert fires when it should', () => {
      promtool.check();
      const dir = mkdtempSync(join(tmpdir(), 'rwx-rules-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
      const check = promtoolRun(['check', 'rules', 'rules.yaml'], dir);
      expect(check.out).toMatch(/SUCCESS: 6 rules found/);
      expect(check.status).toBe(0);
      writeFileSync(
        join(dir, 'test.yaml'),
        stringify({
          rule_files: ['rules.yaml'],
          evaluation_interval: '1m',
          tests: withAnnotations(UNIT_TESTS, rules()),
        }),
      );
      const test = promtoolRun(['test', 'rules', 'test.yaml'], dir);
      expect(test.out).toMatch(/SUCCESS/);
      expect(test.status).toBe(0);
    });
  });
});
