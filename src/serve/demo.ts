// `rwx demo`: the whole pipeline on a simulated cluster, Slack printed in the terminal. The simulator plays the
// scenario in realtime with a speed-up; detection runs on the simulator's clock (stuckAfter is 5 sim minutes),
// while the notifier's group timers run on the wall clock and are shortened so the story fits in about a minute.
import { serveProjector } from '../watch/slim.js';
import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { systemClock } from '../domain/clock.js';
import { connect, project } from '../kube/index.js';
import { DEFAULT_TIMERS } from '../notify/decide.js';
import { createNotifier } from '../notify/notifier.js';
import { TerminalSlack } from '../slack/terminal-slack.js';
import type { MemorySlack } from '../slack/memory-slack.js';
import { KubeClusterSource } from '../watch/kube-source.js';
import { realSync } from '../pipeline/sync.js';
import { resolutionFacts } from '../pipeline/resolution.js';
import { createWatcher, nodeProofs, startServe, type RunningServe } from './app.js';
import type { Clock } from '../domain/clock.js';
import type { Notifier } from '../notify/notifier.js';
import type { SlackApi } from '../slack/api.js';
import type { ClusterWatcher } from '../watch/watcher.js';
import { ServeMetrics } from './metrics.js';
import { maskUrl } from '../config/index.js';
import { connectRedis } from './redis.js';
import { loadSimulator, type RunningSimulator, type SimScenario } from './simulator.js';
import { startDemoAgents, type DemoAgents } from './demo-agents.js';

/** What the demo runs with; see DEMO_TIMERS for the shortened notification timers. */
export interface DemoOptions {
  scenario: string;
  speed: number;
  redisUrl: string;
  follow: boolean;
  out: Writable & { isTTY?: boolean };
  log: Logger;
  /** Give up (exit 1) when nothing resolves within this wall time. */
  timeoutMs?: number;
  /** Resolves to stop early (SIGINT): the demo then exits INTERRUPTED. */
  interrupted?: Promise<unknown>;
  /** Handed the terminal Slack before anything is posted (tests read the messages as posted). */
  onSlack?: (slack: MemorySlack) => void;
}

/** The exit code of a demo stopped by Ctrl-C, as every other command (128 + SIGINT). */
export const INTERRUPTED = 130;

/** Wall-clock notification timers for the demo (production: 30s / 5m / 4h). */
export const DEMO_TIMERS = { groupWait: 2_000, groupInterval: 3_000, repeatInterval: 3_600_000 };

/** What to do when no Redis answers the demo: it needs any empty one, nothing kept. */
export const DEMO_REDIS_FIX = 'start one (redis-server) or give its URL with --redis (or REDIS_URL)';

/** A simulated time as the demo prints it (hh:mm:ss, UTC). */
export const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** Runs the demo; resolves with the exit code (0 once every incident is resolved, 1 on timeout, 130 on Ctrl-C). */
export async function runDemo(o: DemoOptions): Promise<number> {
  const { loadScenario, startSimulator } = await loadSimulator(); // a test tool: one line when it is not installed
  // The scenario before Redis: a file that cannot be read fails with nothing open (an open Redis connection
  // would keep the process alive after the error); then a clear one-line error when no Redis answers.
  const scenario = await loadScenario(o.scenario);
  const redis = await connectRedis(o.redisUrl, { fix: DEMO_REDIS_FIX });
  const say = (s: string) => o.out.write(`${s}\n`);
  let sim: RunningSimulator | undefined;
  let demoAgents: DemoAgents | undefined;
  let narration: Narration | undefined;
  const prefix = `rwx-demo-${randomBytes(4).toString('hex')}`;
  try {
    sim = await startSimulator({ scenario, realtime: true, speed: o.speed });
    const s = sim;
    // The timeline counts from the simulator's start, not from when the bot is up: a story line is never late.
    const start = s.now();
    const story = narrate(scenario, s, say, start);
    narration = story;
    for (const line of introduction(o, scenario, s.url, prefix)) say(line);
    const clock = { now: () => s.now() };
    const slack = demoSlack(o, clock, story);
    const metrics = new ServeMetrics();
    const watcher = await simulatorWatcher(o, s, metrics, clock);
    // FAKE node agents, clearly labelled in every message: the proof line as a cluster with the agent shows it.
    demoAgents = await startDemoAgents(
      () => watcher.index,
      scenario.kubelet ?? {},
      () => s.now(),
    );
    say(
      `  node agents: SIMULATED, fake reports at ${demoAgents.agents.url} (made up from the scenario, not read from a node)\n`,
    );
    const { running, notifier } = await demoServe(o, { watcher, metrics, clock, redis, prefix, slack }, demoAgents);
    const posted = () => slack.messages.length > 0;
    const code = await Promise.race([
      untilResolved(o, s, storyEnd(scenario, start), posted, notifier.store, say),
      (o.interrupted ?? new Promise(() => undefined)).then(() => INTERRUPTED),
    ]);
    await running.stop();
    return code;
  } finally {
    narration?.stop();
    await demoAgents?.agents.stop();
    await sim?.stop();
    await cleanPrefix(redis, prefix).catch(() => undefined);
    redis.disconnect();
  }
}

/**
 * The Slack a demo posts to: printed on `o.out`, each post stamped with the simulated time (`clock`) and preceded
 * by the story lines that are due (`story.flush`); handed to `o.onSlack` before anything is posted.
 */
export function demoSlack(
  o: Pick<DemoOptions, 'out' | 'onSlack'>,
  clock: Clock,
  story: Pick<Narration, 'flush'>,
): TerminalSlack {
  const slack = new TerminalSlack({
    out: o.out,
    stamp: () => `[${hhmm(clock.now())}]`,
    beforePrint: () => story.flush(),
  });
  o.onSlack?.(slack);
  return slack;
}

// The watcher of the simulated cluster, on the simulator's clock (`clock`).
async function simulatorWatcher(
  o: DemoOptions,
  s: RunningSimulator,
  metrics: ServeMetrics,
  clock: Clock,
): Promise<ClusterWatcher> {
  const conn = await connect({ kubeconfig: s.kubeconfigPath, env: {} });
  return createWatcher({
    source: new KubeClusterSource(conn),
    project: serveProjector(project),
    log: o.log,
    metrics,
    clock,
    watchIdleMs: 5 * 60_000,
  });
}

// The pipeline over the demo's watcher: its simulated agents asked, the notifier on shortened timers (the
// keep-firing window the product's in simulated time), posting on the wall clock.
async function demoServe(
  o: DemoOptions,
  p: { watcher: ClusterWatcher; metrics: ServeMetrics; clock: Clock; redis: Redis; prefix: string; slack: SlackApi },
  agents: DemoAgents,
): Promise<{ running: RunningServe; notifier: Notifier }> {
  const { watcher, metrics } = p;
  // On the simulator's clock, as the evaluation that compares a report with the plugin pod's start: its time to
  // live is the wall-clock group interval in simulated time.
  const ttlMs = DEMO_TIMERS.groupInterval * o.speed;
  const proofs = nodeProofs(watcher, { locate: agents.locate, ttlMs, clock: p.clock });
  const notifier = createNotifier({
    redis: p.redis,
    prefix: p.prefix,
    slack: metrics.countSlack(p.slack),
    channel: 'C0DEMO',
    logger: o.log,
    timers: { ...DEMO_TIMERS, keepFiring: DEFAULT_TIMERS.keepFiring / o.speed },
    observeResolution: resolutionFacts(watcher.index, proofs),
    backoffMs: 200,
  });
  const sync = realSync({
    stuckAfterMs: 5 * 60_000,
    cronJobGraceMs: 10 * 60_000,
    driverDaemonSets: {},
    agents: proofs,
  });
  const running = await startServe({
    watcher,
    proofs,
    notifier,
    log: o.log,
    metrics,
    clock: p.clock,
    notifyClock: systemClock,
    tickMs: 250,
    sync,
  });
  return { running, notifier };
}

// The lines printed before the thread: the scenario, where things run, the shortened timers.
function introduction(o: DemoOptions, scenario: SimScenario, url: string, prefix: string): string[] {
  const timers = `group_wait ${DEMO_TIMERS.groupWait / 1000}s, group_interval ${DEMO_TIMERS.groupInterval / 1000}s`;
  const ends = o.follow ? 'Ctrl-C to stop.' : 'Exits when every incident is resolved.';
  return [
    `rwx demo: scenario "${scenario.name}": ${scenario.description ?? ''}`,
    `  simulated API server ${url} (time runs ${o.speed}x), Redis ${maskUrl(o.redisUrl)} (prefix ${prefix})`,
    `  demo timers: ${timers} (production defaults 30s / 5m); stuckAfter 5m of simulated time`,
    `  Slack is printed below as the bot would post it. ${ends}\n`,
  ];
}

/** The story lines of a scenario, printed as simulated time passes them. */
export interface Narration {
  /** Prints every line that is due and not printed yet: called before each Slack post is printed. */
  flush(): void;
  stop(): void;
}

/**
 * Narrates the scenario's timeline as simulated time passes it, each line naming `who` ("cluster", a fleet
 * member's name); `start` is the simulated time the timeline counts from (the simulator's start). Per-node
 * rollback steps are many: the rollout and the rollback are narrated, not every node.
 */
export function narrate(
  scenario: SimScenario,
  s: RunningSimulator,
  say: (line: string) => void,
  start: number,
  who = 'cluster',
): Narration {
  const steps = scenario.timeline.filter((t) => t.note && !/^rollback reaches/.test(t.note));
  let next = 0;
  const flush = (): void => {
    while (next < steps.length && s.now() - start >= (steps[next]?.atMs ?? Infinity)) {
      const st = steps[next++]!;
      say(`\n>> [${hhmm(start + st.atMs)}] ${who}: ${st.note}`);
    }
  };
  const timer = setInterval(flush, 100);
  return { flush, stop: () => clearInterval(timer) };
}

// Simulated time at which the scenario's last step has happened.
function storyEnd(scenario: SimScenario, start: number): number {
  return start + Math.max(0, ...scenario.timeline.map((t) => t.atMs));
}

// Resolves with 0 once something was posted, no incident is open and the story is over; with 1 when the
// wall-clock timeout passes first. With --follow it never resolves (Ctrl-C ends the demo).
async function untilResolved(
  o: DemoOptions,
  s: RunningSimulator,
  endOfStory: number,
  posted: () => boolean,
  store: { listOpen(): Promise<string[]> },
  say: (line: string) => void,
): Promise<number> {
  const timeoutMs = o.timeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    if (o.follow) continue;
    const open = await store.listOpen();
    if (posted() && open.length === 0 && s.now() >= endOfStory) {
      say(`\nrwx demo: every incident is resolved (simulated ${hhmm(s.now())}). ${FOLLOW_HINT}`);
      return 0;
    }
    if (Date.now() > deadline) {
      const left = open.join(', ') || 'none';
      say(`\nrwx demo: not resolved within ${timeoutMs / 1000}s of wall time (open incidents: ${left})`);
      return 1;
    }
  }
}

const FOLLOW_HINT = 'Run `rwx demo --follow` to keep watching.';

/** Deletes every key under `prefix` (the demo's own, random prefix). */
export async function cleanPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}
