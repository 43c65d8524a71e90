// Per-team routing end to end (RWX_TEAM_CHANNELS): the simulator over HTTP, `rwx serve`, real Redis, the fake
// Slack. The rollout incident has stuck pods in platform and search (and data): platform's and search's teams each
// get one root in their channel, linked both ways with the incident channel's thread, kept in step with it
// through the change and the resolution; a button in a team thread changes every root; a team channel the bot is
// not in leaves every other thread as it would be, and is logged.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { openIncidentsFromStore } from '../../src/commands/status-source.js';
import { ACTION_IDS } from '../../src/render/slack-blocks.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { blockKitProblems } from '../support/block-kit.js';
import type { FakeMessage } from '../support/fake-slack.js';
import { startFakeSocketMode, type FakeSocketMode } from '../support/fake-socket-mode.js';
import { click } from '../fleet/harness.js';
import { REDIS_URL, harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

const KEY = 'rollout/kube-system/ebs-csi-node@2';
const TEAMS = { RWX_TEAM_CHANNELS: 'platform=C0PLAT@S0PLATOPS,search=C0SEARCH', RWX_MENTION_USERGROUP: 'S0ONCALL' };
const CHANNELS = ['C0INCIDENT', 'C0PLAT', 'C0SEARCH'];
let h: Harness | undefined;
let socket: FakeSocketMode | undefined;
afterEach(async () => {
  await h?.close();
  await socket?.close();
  h = socket = undefined;
});

const blocks = (m: FakeMessage | undefined): string => JSON.stringify(m?.blocks ?? []);
const link = (m: FakeMessage): string => `https://slack.com/archives/${m.channel}/p${m.ts.replace('.', '')}`;
const rootIn = (x: Harness, channel: string): FakeMessage | undefined => x.slack.roots(channel)[0];
// The replies' ids; the incident thread's links to team roots carry the team record's key.
const ids = (x: Harness, root: FakeMessage): string[] =>
  x.slack.replies(root.ts).map((r) => {
    const p = r.metadata?.event_payload;
    return `${p?.key === root.metadata?.event_payload.key ? '' : `${String(p?.key)} `}${String(p?.reply)}`;
  });
const told = (x: Harness, channel: string): FakeMessage[] =>
  x.slack.replies(rootIn(x, 'C0INCIDENT')!.ts).filter((r) => r.text.includes(`Also posted in <#${channel}>`));

// Every channel has its root and its evidence, and the incident thread names each team channel.
async function allPosted(x: Harness, channels = CHANNELS): Promise<void> {
  await until(
    () =>
      channels.every((c) => rootIn(x, c) && ids(x, rootIn(x, c)!).includes('evidence')) &&
      channels.slice(1).every((c) => told(x, c).length === 1),
    'a root, its evidence and the link in every channel',
  );
}

describe('per-team routing under rwx serve', () => {
  it('one root per channel, linked both ways; a change edits all and replies once in each; the resolution resolves all', async () => {
    h = await harness('scenarios/propagation-loss.yaml', undefined, TEAMS);
    await h.start();
    await h.advance(1_000);
    await allPosted(h);
    const [main, plat, search] = CHANNELS.map((c) => rootIn(h!, c)!) as [FakeMessage, FakeMessage, FakeMessage];
    expect(CHANNELS.map((c) => h!.slack.roots(c).length)).toEqual([1, 1, 1]);
    expect([plat.metadata?.event_payload.key, search.metadata?.event_payload.key]).toEqual([
      `${KEY}#C0PLAT`,
      `${KEY}#C0SEARCH`,
    ]);
    // The team's own user group on its new root; the incident channel's on its own only.
    expect(main.text).toContain('<!subteam^S0ONCALL>');
    expect(plat.text).toContain('<!subteam^S0PLATOPS>');
    expect(search.text).not.toContain('subteam');
    // /rwx status lists one incident, in its incident channel's thread.
    const redis = new Redis(REDIS_URL);
    const status = await openIncidentsFromStore(new RedisIncidentStore(redis, h.prefix))();
    expect(status.map((i) => [i.key, i.channel, i.threadTs])).toEqual([[KEY, 'C0INCIDENT', main.ts]]);
    // The team channels' records are kept under a prefix of their own: a release without per-team routing (a
    // rollback) never finds one in its open set, so never resolves a team thread because its key is not reported.
    expect(await redis.smembers(`${h.prefix}:open`)).toEqual([KEY]);
    expect((await redis.smembers(`${h.prefix}:team:open`)).sort()).toEqual([`${KEY}#C0PLAT`, `${KEY}#C0SEARCH`]);
    const bytes = async (k: string) => Number(await redis.call('MEMORY', 'USAGE', k));
    console.log(
      `record bytes (MEMORY USAGE): incident channel ${await bytes(`${h.prefix}:incident:${KEY}`)}, ` +
        `team channel ${await bytes(`${h.prefix}:team:incident:${KEY}#C0PLAT`)}`,
    );
    await redis.quit();
    // Linked both ways: each team root links the incident thread, which links each team root.
    for (const team of [plat, search]) {
      expect(blocks(team)).toContain(`<#C0INCIDENT> (<${link(main)}|its thread>)`);
      expect(told(h, team.channel)[0]!.text).toContain(`<#${team.channel}> (<${link(team)}|its thread>)`);
    }

    // clickhouse-1 is stuck from about +10m: every root is edited, every thread says so once.
    for (let m = 0; m < 11; m++) await h.advance(60_000);
    // Posted replies only: the second evidence reply, edited in place to the incident as it is, may name it too.
    const saysClickhouse = (r: FakeMessage) =>
      h!.slack
        .replies(r.ts)
        .filter((x) => x.metadata?.event_payload.reply !== 'evidence-rest' && blocks(x).includes('clickhouse'));
    await until(() => [main, plat, search].every((r) => saysClickhouse(r).length >= 1), 'the change in every thread');
    for (const r of [main, plat, search]) {
      expect(h.slack.callsOf('chat.update').some((c) => c.args.ts === r.ts && c.handled)).toBe(true);
      expect(saysClickhouse(r)).toHaveLength(1);
    }

    // Rollback at +12m, recovery by about +32m: the resolution in every thread, every root resolved.
    for (let m = 0; m < 20; m++) await h.advance(60_000);
    await until(() => [main, plat, search].every((r) => ids(h!, r).includes('resolution')), 'every resolution');
    await until(() => [main, plat, search].every((r) => /Resolved/.test(blocks(rootIn(h!, r.channel)))), 'resolved');
    for (const r of [main, plat, search]) {
      const all = ids(h, r);
      expect(all, r.channel).toEqual([...new Set(all)]); // each reply once
      expect(h.slack.roots(r.channel)).toHaveLength(1);
    }
    expect(blocks(rootIn(h, 'C0PLAT'))).toContain(link(main)); // still linked once resolved
    // The backup's run completes a few minutes later: the follow-up in every thread.
    for (let m = 0; m < 8; m++) await h.advance(60_000);
    const followedUp = (r: FakeMessage) => ids(h!, r).some((i) => i.startsWith('follow-up:'));
    await until(() => [main, plat, search].every(followedUp), 'the follow-up in every thread');
    // Every message in every channel is within Slack's limits and escaped.
    const calls = h.slack.calls.filter((c) => ['chat.postMessage', 'chat.update'].includes(c.method));
    expect(calls.flatMap((c, i) => blockKitProblems(c.args, `${c.method} #${i}`))).toEqual([]);
    // How long after the incident channel's root each team root was posted (it waits for it, polling every 1 s).
    const postedAt = (c: string) =>
      h!.slack.calls.find((x) => x.method === 'chat.postMessage' && x.args.channel === c && !x.args.thread_ts)!.at;
    console.log(
      `team roots posted ${postedAt('C0PLAT') - postedAt('C0INCIDENT')} ms and ` +
        `${postedAt('C0SEARCH') - postedAt('C0INCIDENT')} ms after the incident channel's root`,
    );
  }, 120_000);

  it('a button pressed in a team thread acts on the incident: every root shows it', async () => {
    h = await harness('scenarios/propagation-loss.yaml', undefined, { ...TEAMS, SLACK_APP_TOKEN: 'xapp-test' });
    socket = await startFakeSocketMode();
    h.slack.socketModeUrl = socket.url;
    await h.start({}, { slash: true });
    await socket.waitForConnections(1);
    await h.advance(1_000);
    await allPosted(h);
    // The team root's Acknowledge button carries the incident's key.
    const search = rootIn(h, 'C0SEARCH')!;
    const value = /"action_id":"rwx_ack","value":"([^"]+)"/.exec(blocks(search))?.[1];
    expect(value).toBe(KEY);
    await socket.send('interactive', click(h.slack, ACTION_IDS.ack, value!, 'ack', 'U0ALICE', 'C0SEARCH'));
    const everyRoot = (re: RegExp) => () => CHANNELS.every((c) => re.test(blocks(rootIn(h!, c))));
    await until(everyRoot(/Acknowledged by <@U0ALICE>/), 'the ack on every root');
    // Pressed in a channel that is neither the incident's nor a team's: refused, nothing changes.
    await socket.send('interactive', click(h.slack, ACTION_IDS.resolve, KEY, 'stray', 'U0BOB', 'C0RANDOM'));
    await until(() => (h!.slack.responses.get('stray')?.length ?? 0) > 0, 'the refusal');
    expect(JSON.stringify(h.slack.responses.get('stray'))).toContain('not allowed');
    // Resolve in the platform team's thread: every thread gets its resolution, every root is resolved by Alice.
    await socket.send('interactive', click(h.slack, ACTION_IDS.resolve, KEY, 'res', 'U0ALICE', 'C0PLAT'));
    await until(everyRoot(/Resolved by <@U0ALICE>/), 'resolved on every root');
    for (const c of CHANNELS) expect(ids(h, rootIn(h, c)!).filter((i) => i === 'resolution')).toHaveLength(1);
  }, 60_000);

  it('a team channel the bot is not in: the other threads are posted, the refusal said once, logged and counted', async () => {
    h = await harness('scenarios/propagation-loss.yaml', undefined, TEAMS);
    h.slack.leave('C0SEARCH');
    await h.start();
    await h.advance(1_000);
    await allPosted(h, ['C0INCIDENT', 'C0PLAT']);
    const said = () => h!.lines.filter((l) => l.includes('the bot cannot post in this channel'));
    await until(() => said().length >= 1, 'the refusal logged');
    expect(said()[0]).toContain(`"key":"${KEY}#C0SEARCH"`);
    expect(said()[0]).toContain('not_in_channel (channel C0SEARCH)');
    const metrics = await (await fetch(`http://127.0.0.1:${h.serve!.port}/metrics`)).text();
    expect(metrics).toMatch(/rwx_slack_channel_refused_total\{channel="C0SEARCH"\} [1-9]/);
    expect(metrics).not.toMatch(/rwx_slack_channel_refused_total\{channel="C0(INCIDENT|PLAT)"\}/);
    // The incident channel's thread says who was not told and what to do, once, and links no search thread.
    const refused = () =>
      h!.slack.replies(rootIn(h!, 'C0INCIDENT')!.ts).filter((r) => r.text.includes('Could not post in <#C0SEARCH>'));
    expect(h.slack.roots('C0SEARCH')).toHaveLength(0);
    expect(told(h, 'C0SEARCH')).toHaveLength(0);
    expect(refused()).toHaveLength(1);
    expect(refused()[0]?.text).toContain('Invite it there');
    expect(ids(h, rootIn(h, 'C0INCIDENT')!)).toContain(`${KEY}#C0SEARCH team-refused`);
    // Invited, the search team gets its root (and the incident thread its link) at the next retry.
    h.slack.join('C0SEARCH');
    await allPosted(h);
    expect(CHANNELS.map((c) => h!.slack.roots(c).length)).toEqual([1, 1, 1]);
    expect(refused()).toHaveLength(1);
  }, 60_000);
});
