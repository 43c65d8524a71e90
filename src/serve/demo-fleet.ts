// `rwx demo --fleet`: the fleet story on the terminal. Three simulated clusters (one simulator each, on its own
// port) and one Redis; each runs the whole `rwx serve` pipeline with RWX_FLEET on, and their Slack posts go to one
// channel printed here by the same renderers as Slack. staging-1 and prod-eu-1 run the same bad ebs-csi-node
// revision (propagation-loss): two threads, one linked to the other. prod-us-1 then starts rolling out the
// same change (rollout-start): the channel gets the warning before any pod is stuck there. Last, a command typed in
// the channel about prod-eu-1 reaches staging-1's bot and is answered by prod-eu-1 (demo-route.ts).
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { loadConfig } from '../config/index.js';
import { connect } from '../kube/index.js';
import type { TerminalSlack } from '../slack/terminal-slack.js';
import { KubeClusterSource } from '../watch/kube-source.js';
import type { RunningServe } from './app.js';
import { cleanPrefix, DEMO_REDIS_FIX, DEMO_TIMERS, demoSlack, INTERRUPTED, narrate, type Narration } from './demo.js';
import type { MemorySlack } from '../slack/memory-slack.js';
import { SILENT_AFTER_MS } from '../fleet/heartbeat.js';
import { DemoCommandApp, demoAnswers } from './demo-route.js';
import { runServe } from './main.js';
import { maskUrl } from '../config/index.js';
import { connectRedis } from './redis.js';
import { loadSimulator, type RunningSimulator, type SimScenario, type SimulatorModule } from './simulator.js';

const scenario = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}.yaml`, import.meta.url));

/** The fleet of the demo: each cluster's name and scenario, in the order they start. */
export const FLEET_DEMO = [
  { name: 'staging-1', scenario: scenario('propagation-loss') },
  { name: 'prod-eu-1', scenario: scenario('propagation-loss') },
  { name: 'prod-us-1', scenario: scenario('rollout-start') },
] as const;

/** The channel every cluster posts into. */
const CHANNEL = 'C0FLEET';

/** The command the demo types in the channel, and the cluster whose bot Slack hands it to (not the one it names). */
export const ROUTED_COMMAND = { text: 'drain node-19 @prod-eu-1', receiver: 'staging-1', owner: 'prod-eu-1' } as const;

/** What the fleet demo runs with. */
export interface FleetDemoOptions {
  speed: number;
  redisUrl: string;
  out: Writable & { isTTY?: boolean };
  log: Logger;
  /** Give up (exit 1) when the story is not told within this wall time (default 180 s). */
  timeoutMs?: number;
  interrupted?: Promise<unknown>;
  /** Handed the terminal Slack before anything is posted (tests read the messages as posted). */
  onSlack?: (slack: MemorySlack) => void;
}

/** Runs the fleet demo; resolves with 0 once the link and the rollout warning are posted, 1 on timeout, 130 on Ctrl-C. */
export async function runFleetDemo(o: FleetDemoOptions): Promise<number> {
  const { loadScenario, startSimulator } = await loadSimulator();
  const redis = await connectRedis(o.redisUrl, { fix: DEMO_REDIS_FIX }); // first: a clear one-line error when no Redis answers
  const base = `rwx-demo-${randomBytes(4).toString('hex')}`;
  const say = (s: string) => o.out.write(`${s}\n`);
  const sims: RunningSimulator[] = [];
  const serves: RunningServe[] = [];
  const narrations: Narration[] = [];
  const over = { now: false };
  // Stops the story, the bots and the simulators, once (the closing line, then the finally, call it).
  const stopAll = async (): Promise<void> => {
    over.now = true;
    for (const n of narrations.splice(0)) n.stop();
    for (const s of serves.splice(0)) await s.stop().catch(() => undefined);
    for (const s of sims.splice(0)) await s.stop().catch(() => undefined);
  };
  try {
    const scenarios = await Promise.all(FLEET_DEMO.map((c) => loadScenario(c.scenario)));
    const starts = await startSimulators(startSimulator, scenarios, o.speed, sims);
    for (const line of introduction(o, base, scenarios, sims)) say(line);
    FLEET_DEMO.forEach((c, i) => narrations.push(narrate(scenarios[i]!, sims[i]!, say, starts[i]!, c.name)));
    // Story lines that are due print before any post: a cluster's warning never comes before its own rollout.
    const slack = demoSlack(o, sims[0]!, { flush: () => narrations.forEach((n) => n.flush()) });
    const answers: string[] = [];
    const apps = new Map<string, DemoCommandApp>();
    for (const [i, c] of FLEET_DEMO.entries()) {
      const app = new DemoCommandApp();
      apps.set(c.name, app);
      serves.push(await startMember(o, { name: c.name, sim: sims[i]!, app }, { base, slack, answers }));
    }
    const deadline = Date.now() + (o.timeoutMs ?? 180_000);
    const told = untilTold(slack, deadline, over).then((c) =>
      c === 0 ? routeCommand(apps, slack, say, answers, deadline, over) : c,
    );
    const interrupted = (o.interrupted ?? new Promise(() => undefined)).then(() => 'interrupted' as const);
    const outcome = await Promise.race([told, interrupted]);
    // Every bot stops (and prints what it was posting) before the closing line: nothing comes after it.
    await stopAll();
    say(closingLine(outcome));
    return outcome === 0 ? 0 : outcome === 'interrupted' ? INTERRUPTED : 1;
  } finally {
    await stopAll();
    await cleanPrefix(redis, base).catch(() => undefined);
    redis.disconnect();
  }
}

// Starts one simulator per scenario in turn, each added to `sims` as it is up (so the demo stops those started
// when a later one fails); resolves with each one's simulated start, which its timeline counts from (not from when
// its bot is up).
async function startSimulators(
  startSimulator: SimulatorModule['startSimulator'],
  scenarios: readonly SimScenario[],
  speed: number,
  sims: RunningSimulator[],
): Promise<number[]> {
  const starts: number[] = [];
  for (const s of scenarios) {
    const sim = await startSimulator({ scenario: s, realtime: true, speed });
    sims.push(sim);
    starts.push(sim.now());
  }
  return starts;
}

// The lines printed before the channel: where each cluster runs, which scenario, how fast.
function introduction(
  o: FleetDemoOptions,
  base: string,
  scenarios: readonly SimScenario[],
  sims: readonly RunningSimulator[],
): string[] {
  return [
    `rwx demo --fleet: three clusters, one Redis ${maskUrl(o.redisUrl)} (prefix ${base}), one Slack channel`,
    ...FLEET_DEMO.map((c, i) => `  ${c.name}: "${scenarios[i]!.name}" on ${sims[i]!.url} (time runs ${o.speed}x)`),
    '  Slack is printed below as the bots would post it, every cluster into the same channel.\n',
  ];
}

// One member's `rwx serve` over its simulator: posting to the shared terminal `slack`, its /rwx delivered through
// `app`, its answers to commands noted in `answers`, on the simulator's clock.
async function startMember(
  o: FleetDemoOptions,
  member: { name: string; sim: RunningSimulator; app: DemoCommandApp },
  shared: { base: string; slack: TerminalSlack; answers: string[] },
): Promise<RunningServe> {
  const { sim, app } = member;
  const { slack, answers } = shared;
  const config = loadConfig({ env: memberEnv(member.name, o.redisUrl, shared.base) });
  const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
  return runServe(config, o.log, {
    source: new KubeClusterSource(conn),
    slack,
    bolt: false,
    commands: { app: app.asApp(), sender: demoAnswers(slack, (t) => answers.push(t)) },
    // Heartbeats are stamped with the simulator's clock, which runs `speed` times faster than their interval.
    fleet: { silentAfterMs: SILENT_AFTER_MS * o.speed },
    port: 0,
    parts: { clock: { now: () => sim.now() }, tickMs: 250 },
  });
}

// The demo's last line: what the story showed, or why it ended early.
function closingLine(outcome: number | 'interrupted'): string {
  if (outcome === 0)
    return (
      '\nrwx demo --fleet: the same change broke two clusters (one thread links the other), the third ' +
      `was warned before a single mount failed there, and a command about ${ROUTED_COMMAND.owner} was answered ` +
      `by ${ROUTED_COMMAND.owner} though Slack handed it to ${ROUTED_COMMAND.receiver}.`
    );
  return outcome === 'interrupted'
    ? '\nrwx demo --fleet: interrupted.'
    : '\nrwx demo --fleet: the story did not finish in time.';
}

// One member's environment: the fleet's shared Redis prefix, its own name, the demo's short timers. No Slack is
// reached (the bots post to the terminal), so the tokens are placeholders; logging is the CLI's logger.
function memberEnv(name: string, redisUrl: string, base: string): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: 'xoxb-demo',
    SLACK_APP_TOKEN: 'xapp-demo',
    SLACK_CHANNEL: CHANNEL,
    REDIS_URL: redisUrl,
    RWX_REDIS_PREFIX: base,
    RWX_FLEET: 'true',
    RWX_CLUSTER_NAME: name,
    RWX_GROUP_WAIT: `${DEMO_TIMERS.groupWait}ms`,
    RWX_GROUP_INTERVAL: `${DEMO_TIMERS.groupInterval}ms`,
    // The pipeline runs on the simulator's clock, which runs faster: a quiet watch is not stalled after 75s of it.
    RWX_WATCH_IDLE_TIMEOUT: '24h',
  };
}

// Resolves with 0 once a thread reply links another cluster's thread and a root warns of a rollout, 1 past the
// deadline or once `over`.
async function untilTold(slack: TerminalSlack, deadline: number, over: { now: boolean }): Promise<number> {
  return until(
    () => {
      const texts = slack.messages.map((m) => m.text);
      return texts.some((t) => t.startsWith(':link:')) && texts.some((t) => t.includes('started rolling out'));
    },
    deadline,
    over,
  );
}

// Types ROUTED_COMMAND in the channel, hands it to the receiver's bot, and resolves with 0 once an answer (from
// the owning cluster: its sender says which) is printed, 1 past the deadline or once `over`.
async function routeCommand(
  apps: ReadonlyMap<string, DemoCommandApp>,
  slack: TerminalSlack,
  say: (s: string) => void,
  answers: readonly string[],
  deadline: number,
  over: { now: boolean },
): Promise<number> {
  const { text, receiver, owner } = ROUTED_COMMAND;
  say(`>> typed in the channel: /rwx ${text} (Slack hands it to ${receiver}'s bot; ${owner}'s bot answers)\n`);
  await apps.get(receiver)!.deliver(text, CHANNEL, slack);
  return until(() => answers.length > 0, deadline, over);
}

// Polls `done`: 0 once it holds, 1 past the deadline, or once `over` (the demo ended otherwise, e.g. Ctrl-C:
// polling on kept the process alive until the deadline).
async function until(done: () => boolean, deadline: number, over: { now: boolean }): Promise<number> {
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    if (over.now) return 1;
    if (done()) return 0;
    if (Date.now() > deadline) return 1;
  }
}
