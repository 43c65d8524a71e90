// Per-team routing in a fleet: two clusters with the same team map share the incident channel and the team's
// channel. Each cluster's incident gets its own root in the team channel (its key qualified by the cluster), and a
// click in the team channel, handed by Slack to the other cluster's bot, is routed to the incident's own cluster and
// shows on every root of that incident.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/render/slack-blocks.js';
import { until } from '../support/until.js';
import { scenarioPath } from '../support/sim.js';
import { seeded } from '../support/fake-socket-mode.js';
import { CHANNEL, click, startFleet, type Fleet } from './harness.js';

const TEAMS = { RWX_TEAM_CHANNELS: 'platform=C0PLAT,data=C0PLAT' };
const ROLLOUT = 'staging-1:rollout/kube-system/ebs-csi-node@2';
let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet(
    [
      { name: 'staging-1', scenario: scenarioPath('propagation-loss'), env: TEAMS },
      { name: 'prod-us-1', scenario: scenarioPath('node-fault'), env: TEAMS },
    ],
    { random: seeded(7) },
  );
  await fleet.advance(1_000);
  // Both threads of the rollout whole (the fleet's limiter spaces the posts in each channel by 1.1 s): a click
  // meanwhile could find the incident's lock held by a post waiting for its turn.
  const replies = (c: string, key: string) => {
    const root = fleet.slack.roots(c).find((m) => keyOf(m) === key);
    return root ? fleet.slack.replies(root.ts).map((r) => String(r.metadata?.event_payload.reply)) : [];
  };
  await until(
    () =>
      replies('C0PLAT', `${ROLLOUT}#C0PLAT`).includes('evidence') && replies(CHANNEL, ROLLOUT).includes('team-root'),
    'the rollout threads',
    30_000,
  );
}, 60_000);

afterAll(async () => {
  await fleet?.close();
});

const keyOf = (m: { metadata?: { event_payload: Record<string, unknown> } }) => String(m.metadata?.event_payload.key);

describe('per-team routing in a fleet', () => {
  it("each cluster's incident has its own root in the team channel, keyed by its cluster", async () => {
    await until(() => fleet.slack.roots('C0PLAT').some((m) => keyOf(m) === `${ROLLOUT}#C0PLAT`), 'the team root');
    const keys = fleet.slack.roots('C0PLAT').map(keyOf);
    expect(keys.filter((k) => k === `${ROLLOUT}#C0PLAT`)).toHaveLength(1);
    expect(keys.every((k) => /^(staging-1|prod-us-1):.+#C0PLAT$/.test(k))).toBe(true);
    // Each team root links its own incident's thread in the incident channel.
    const main = fleet.slack.roots(CHANNEL).find((m) => keyOf(m) === ROLLOUT)!;
    const team = fleet.slack.roots('C0PLAT').find((m) => keyOf(m) === `${ROLLOUT}#C0PLAT`)!;
    expect(JSON.stringify(team.blocks)).toContain(`archives/${CHANNEL}/p${main.ts.replace('.', '')}`);
  });

  it("a click in the team channel handed to the other cluster's bot acts on the incident's cluster", async () => {
    const team = fleet.slack.roots('C0PLAT').find((m) => keyOf(m) === `${ROLLOUT}#C0PLAT`)!;
    const value = /"action_id":"rwx_ack","value":"([^"]+)"/.exec(JSON.stringify(team.blocks))?.[1];
    expect(value).toBe(ROLLOUT);
    // Connection 2 is prod-us-1's bot.
    const ack = await fleet.socket.send(
      'interactive',
      click(fleet.slack, ACTION_IDS.ack, value!, 'f1', 'U0ALICE', 'C0PLAT'),
      { to: 2 },
    );
    expect(ack.connection).toBe(2);
    const roots = () => [CHANNEL, 'C0PLAT'].map((c) => fleet.slack.roots(c).find((m) => keyOf(m).startsWith(ROLLOUT))!);
    await until(
      () => roots().every((r) => JSON.stringify(r.blocks).includes('Acknowledged by <@U0ALICE>')),
      'every root',
    );
  });
});
