// Test harness: the full `rwx serve` pipeline in process, in a world (test/support/world.ts: the simulator on a
// ManualClock, real Redis under a unique prefix, the fake Slack Web API). Time moves only through advance(); I/O is
// awaited with until().
import { serveProjector } from '../../src/watch/slim.js';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { Incident } from '../../src/domain/incident.js';
import { connect, project } from '../../src/kube/index.js';
import { createWatcher, startServe, type RunningServe } from '../../src/serve/app.js';
import { createLogger } from '../../src/serve/log.js';
import { runServe, type ServeOverrides } from '../../src/serve/main.js';
import { ServeMetrics } from '../../src/serve/metrics.js';
import { realSync } from '../../src/pipeline/sync.js';
import { startSimulator, type Scenario, type Simulator } from '@rwx/kube-sim';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { postSlashCommand } from '../support/slash-command.js';
import { until } from '../support/until.js';
import { CHANNEL, SIGNING_SECRET, openWorld } from '../support/world.js';

export { REDIS_URL, cleanRedis } from '../support/world.js';

/** A logger that keeps JSON lines in memory (also checks nothing secret is logged). */
export function memoryLogger(): { log: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { log: createLogger('info', dest as never), lines };
}

/** One scenario under test with everything around it. */
export interface Harness {
  clock: ManualClock;
  sim: Simulator;
  slack: FakeSlack;
  prefix: string;
  serve?: RunningServe;
  lines: string[];
  /**
   * Starts (or restarts) the pipeline on the same Redis prefix and waits for the first list; `parts`: more of it.
   * `slash`: also the Bolt app in HTTP mode, so command() can send `/rwx` as Slack does (in Socket Mode with
   * SLACK_APP_TOKEN and the fake's socketModeUrl set, for clicks sent through a fake Socket Mode server).
   */
  start(parts?: ServeOverrides['parts'], opts?: { slash?: boolean }): Promise<RunningServe>;
  /** `/rwx TEXT` from #incidents, signed; resolves with what the bot posted to its response_url (JSON). */
  command(text: string): Promise<string>;
  /** Moves sim time and runs one pipeline tick. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the simulator for `scenario` and the fake Slack; call start() for the pipeline. `env`: more settings. */
export async function harness(
  scenario: string | Scenario,
  timers = { groupWait: '200ms', groupInterval: '300ms' },
  env: Record<string, string> = {},
): Promise<Harness> {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const world = await openWorld({ name: 'test', scenario, clock, timers });
  const { sim, slack, prefix } = world;
  const { log, lines } = memoryLogger();
  const config = loadConfig({ env: world.env(env) });
  let commandUrl: string | undefined;
  const h: Harness = {
    clock,
    sim,
    slack,
    prefix,
    lines,
    async start(parts = {}, opts = {}) {
      const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
      const seen = lines.length;
      h.serve = await runServe(config, log, {
        source: new KubeClusterSource(conn),
        bolt: opts.slash ?? false,
        port: 0,
        parts: { clock, tickMs: 0, ...parts },
        notifier: { backoffMs: 50, lockTtlMs: 2000, channelRetryMs: 300 },
      });
      // Bolt's receiver owns the port (0: a free one); runServe logs where it listens.
      const started = opts.slash
        ? lines
            .slice(seen)
            .map((l) => JSON.parse(l) as { msg?: string; port?: number })
            .find((l) => l.msg === 'slack app started')
        : undefined;
      if (started?.port) commandUrl = `http://127.0.0.1:${started.port}/slack/events`;
      await h.serve.watcher.waitSynced(10_000);
      await h.serve.tick();
      return h.serve;
    },
    async command(text) {
      if (!commandUrl) throw new Error('command(): start the harness with { slash: true }');
      const id = randomBytes(6).toString('hex');
      const channel = CHANNEL;
      const ack = await postSlashCommand({
        url: commandUrl,
        secret: SIGNING_SECRET,
        channel,
        text,
        responseUrl: slack.responseUrl(id),
      });
      if (ack.status !== 200) throw new Error(`/rwx ${text}: HTTP ${ack.status} ${ack.body}`);
      await until(() => (slack.responses.get(id)?.length ?? 0) > 0, `the answer to /rwx ${text}`, 30_000);
      return JSON.stringify(slack.responses.get(id));
    },
    async advance(ms) {
      await sim.advance(ms);
      // Let the watch events the advance produced arrive before evaluating.
      await new Promise((r) => setTimeout(r, 50));
      await h.serve?.tick();
    },
    async close() {
      await h.serve?.stop();
      await world.close();
    },
  };
  return h;
}

/** The pipeline alone (no Redis, no Slack) over a scenario: what the correlator makes of it after `ms`. */
export async function incidentsOf(scenario: string, ms = 0): Promise<Incident[]> {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const sim = await startSimulator({ scenario, clock });
  const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
  const { log } = memoryLogger();
  const cache = {
    source: new KubeClusterSource(conn),
    project: serveProjector(project),
    log,
    metrics: new ServeMetrics(),
    clock,
    watchIdleMs: 300_000,
  };
  const serve = await startServe({
    ...cache,
    watcher: createWatcher(cache),
    tickMs: 0,
    sync: realSync({ stuckAfterMs: 300_000, cronJobGraceMs: 600_000, driverDaemonSets: {} }),
    notifier: { submit: async () => undefined, close: async () => undefined },
  });
  try {
    await serve.watcher.waitSynced(10_000);
    if (ms) await sim.advance(ms);
    await new Promise((r) => setTimeout(r, 50));
    await serve.tick();
    return [...serve.pipeline.current()];
  } finally {
    await serve.stop();
    await sim.stop();
  }
}
