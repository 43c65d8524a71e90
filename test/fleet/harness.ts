// A fleet under test: one world (test/support/world.ts) of two or three simulated clusters (the simulator, each on
// its own port), one Redis prefix and one fake Slack (Web API), with one fake Socket Mode server that hands each
// envelope to a random connected bot, and a full `rwx serve` per cluster in Socket Mode with RWX_FLEET on. The
// simulators share the world's ManualClock (advance() moves them together), which is also every bot's clock, so
// heartbeats age with it.
import { randomBytes } from 'node:crypto';
import type { Scenario, Simulator } from '@rwx/kube-sim';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { connect } from '../../src/kube/index.js';
import type { RunningServe } from '../../src/serve/app.js';
import { runServe, type ServeOverrides } from '../../src/serve/main.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { startFakeSocketMode, type FakeSocketMode } from '../support/fake-socket-mode.js';
import { slashFields } from '../support/slash-command.js';
import { until } from '../support/until.js';
import { CHANNEL, openWorld, type World } from '../support/world.js';
import { memoryLogger } from '../serve/harness.js';

export { CHANNEL };

/** One cluster of the fleet. */
export interface Member {
  name: string;
  sim: Simulator;
  serve?: RunningServe;
  /** Its Socket Mode connection id (connections are numbered in the order the bots connect). */
  connection: number;
  lines: string[];
}

/** The fleet. */
export interface Fleet {
  clock: ManualClock;
  slack: FakeSlack;
  socket: FakeSocketMode;
  base: string;
  members: Member[];
  member(name: string): Member;
  /** Moves every simulator (and the bots' clock) by `ms`, then runs one pipeline tick in each running bot. */
  advance(ms: number): Promise<void>;
  /** Stops one bot (its process dies: no more heartbeats, no worker). */
  kill(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Per cluster: its name and scenario, and extra environment (RWX_CHANNEL_CLUSTERS...). */
export interface MemberSpec {
  name: string;
  scenario: string | Scenario;
  env?: Record<string, string>;
  /** Another replica of the cluster of the member started just before: it watches that member's simulator. */
  replica?: boolean;
}

/** Starts the clusters in order (so connection i+1 is members[i]) and waits for each first evaluation. */
export async function startFleet(
  specs: MemberSpec[],
  opts: { fleet?: ServeOverrides['fleet']; random?: () => number; channelLimit?: boolean } = {},
): Promise<Fleet> {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const timers = { groupWait: '200ms', groupInterval: '300ms' };
  const world = await openWorld({ name: 'test-fleet', clock, timers, cluster: false });
  const { slack, prefix: base } = world;
  const socket = await startFakeSocketMode(opts.random ? { random: opts.random } : {});
  slack.socketModeUrl = socket.url;
  if (opts.channelLimit) slack.channelRateLimit();
  const members: Member[] = [];
  const fleet: Fleet = {
    clock,
    slack,
    socket,
    base,
    members,
    member: (name) => {
      const m = members.find((x) => x.name === name);
      if (!m) throw new Error(`no member ${name}`);
      return m;
    },
    async advance(ms) {
      const [first, ...rest] = members;
      await first?.sim.advance(ms);
      for (const m of rest) if (m.sim !== first?.sim) await m.sim.advance(0);
      await new Promise((r) => setTimeout(r, 50));
      for (const m of members) await m.serve?.tick();
    },
    async kill(name) {
      const m = fleet.member(name);
      await m.serve?.stop();
      delete m.serve;
      // Slack stops handing it envelopes once its connection is seen closed.
      await until(() => !socket.openIds().includes(m.connection), `${name}'s Socket Mode connection to close`);
    },
    async close() {
      for (const m of members) await m.serve?.stop();
      await socket.close();
      await world.close(); // the fake Slack, every cluster, the prefix's keys
    },
  };
  try {
    for (const spec of specs) {
      const prev = members[members.length - 1];
      const sim = spec.replica && prev ? prev.sim : await world.addCluster(spec.scenario);
      const { serve, lines } = await startMember(world, clock, sim, spec, opts.fleet);
      members.push({ name: spec.name, sim, serve, connection: members.length + 1, lines });
      await serve.watcher.waitSynced(10_000);
      await serve.tick();
      await socket.waitForConnections(members.length);
    }
  } catch (e) {
    await fleet.close();
    throw e;
  }
  return fleet;
}

// One cluster's bot, in Socket Mode with RWX_FLEET on, on the world's clock and Redis prefix.
async function startMember(
  world: World,
  clock: ManualClock,
  sim: Simulator,
  spec: MemberSpec,
  fleet: ServeOverrides['fleet'],
): Promise<{ serve: RunningServe; lines: string[] }> {
  const { log, lines } = memoryLogger();
  const config = loadConfig({
    env: world.env({
      SLACK_APP_TOKEN: 'xapp-fleet-test',
      RWX_FLEET: 'true',
      RWX_CLUSTER_NAME: spec.name,
      RWX_ALLOWED_CHANNELS: '*',
      ...spec.env,
    }),
  });
  const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
  const serve = await runServe(config, log, {
    source: new KubeClusterSource(conn),
    port: 0,
    parts: { clock, tickMs: 0 },
    notifier: { backoffMs: 50, lockTtlMs: 2000 },
    // A routed job is withdrawn after 4 s untaken: far above a loaded machine's routing time, far under 30 s.
    fleet: { heartbeatMs: 100, publishMs: 100, answerTimeoutMs: 4000, ...fleet },
  });
  return { serve, lines };
}

/** The fields of a `/rwx` slash command from the incident channel, answered on response_url id `rid`. */
export function command(slack: FakeSlack, text: string, rid: string, fields: Record<string, string> = {}) {
  return { ...slashFields({ channel: CHANNEL, text, responseUrl: slack.responseUrl(rid) }), ...fields };
}

/** A click on an incident root's button whose value is `value`, in `channel` (default the incident channel). */
export function click(
  slack: FakeSlack,
  actionId: string,
  value: string,
  rid: string,
  user = 'U0ALICE',
  channel = CHANNEL,
) {
  return {
    type: 'block_actions',
    team: { id: 'T0FAKE', domain: 'fake' },
    user: { id: user, username: 'alice', team_id: 'T0FAKE' },
    api_app_id: 'A0RWX',
    token: 'legacy',
    trigger_id: randomBytes(8).toString('hex'),
    container: { type: 'message', message_ts: '1.1', channel_id: channel, is_ephemeral: false },
    channel: { id: channel, name: 'incidents' },
    response_url: slack.responseUrl(rid),
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'rwx_incident_actions',
        value,
        action_ts: '1.2',
        text: { type: 'plain_text', text: 'x' },
      },
    ],
  };
}
