// A fleet under test: two or three simulated clusters (the simulator, each on its own port), one Redis (a unique
// base prefix), one fake Slack (Web API) and one fake Socket Mode server that hands each envelope to a random
// connected bot, and a full `rwx serve` per cluster in Socket Mode with RWX_FLEET on. The simulators share one
// ManualClock (advance() moves them together), which is also every bot's clock, so heartbeats age with it.
import { randomBytes } from 'node:crypto';
import { startSimulator, type Scenario, type Simulator } from '@rwx/kube-sim';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { connect } from '../../src/kube/index.js';
import type { RunningServe } from '../../src/serve/app.js';
import { runServe, type ServeOverrides } from '../../src/serve/main.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { startFakeSocketMode, type FakeSocketMode } from '../support/fake-socket-mode.js';
import { cleanRedis, memoryLogger, REDIS_URL, until } from '../serve/harness.js';

export const CHANNEL = 'C0INCIDENT';

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
  const slack = await startFakeSlack();
  const socket = await startFakeSocketMode(opts.random ? { random: opts.random } : {});
  slack.socketModeUrl = socket.url;
  if (opts.channelLimit) slack.channelRateLimit();
  const base = `rwx-test-fleet-${randomBytes(4).toString('hex')}`;
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
      for (const sim of new Set(members.map((m) => m.sim))) await sim.stop();
      await socket.close();
      await slack.close();
      await cleanRedis(base);
    },
  };
  try {
    for (const spec of specs) {
      const prev = members[members.length - 1];
      const sim = spec.replica && prev ? prev.sim : await startSimulator({ scenario: spec.scenario, clock });
      const { log, lines } = memoryLogger();
      const config = loadConfig({
        env: {
          SLACK_BOT_TOKEN: 'xoxb-fleet-test',
          SLACK_APP_TOKEN: 'xapp-fleet-test',
          SLACK_CHANNEL: CHANNEL,
          SLACK_API_URL: slack.apiUrl,
          REDIS_URL,
          RWX_REDIS_PREFIX: base,
          RWX_FLEET: 'true',
          RWX_CLUSTER_NAME: spec.name,
          RWX_GROUP_WAIT: '200ms',
          RWX_GROUP_INTERVAL: '300ms',
          RWX_ALLOWED_CHANNELS: '*',
          LOG_LEVEL: 'info',
          ...spec.env,
        },
      });
      const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
      const serve = await runServe(config, log, {
        source: new KubeClusterSource(conn),
        port: 0,
        parts: { clock, tickMs: 0 },
        notifier: { backoffMs: 50, lockTtlMs: 2000 },
        // A routed job is withdrawn after 4 s untaken: far above a loaded machine's routing time, far under 30 s.
        fleet: { heartbeatMs: 100, publishMs: 100, answerTimeoutMs: 4000, ...opts.fleet },
      });
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

/** The fields of a `/rwx` slash command from the incident channel, answered on response_url id `rid`. */
export function command(slack: FakeSlack, text: string, rid: string, fields: Record<string, string> = {}) {
  return {
    token: 'legacy',
    team_id: 'T0FAKE',
    team_domain: 'fake',
    channel_id: CHANNEL,
    channel_name: 'incidents',
    user_id: 'U0ALICE',
    user_name: 'alice',
    command: '/rwx',
    text,
    api_app_id: 'A0RWX',
    trigger_id: randomBytes(8).toString('hex'),
    response_url: slack.responseUrl(rid),
    ...fields,
  };
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
