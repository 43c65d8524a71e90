// `/rwx` through the whole `rwx serve` composition (runServe): Bolt in HTTP mode on PORT, the simulator's
// propagation-loss scenario as the cluster, Redis, and the fake Slack for the Web API and the response_url.
// A signed `/rwx status` lists the open rollout incident with a link to its thread; `/rwx drain node-19` says
// BLOCK; an unsigned request gets 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { connect } from '../../src/kube/index.js';
import type { RunningServe } from '../../src/serve/app.js';
import { runServe } from '../../src/serve/main.js';
import type { Simulator } from '@rwx/kube-sim';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { postSlashCommand } from '../support/slash-command.js';
import { until } from '../support/until.js';
import { CHANNEL, SIGNING_SECRET, openWorld, type World } from '../support/world.js';
import { memoryLogger } from './harness.js';

const ROLLOUT_KEY = 'rollout/kube-system/ebs-csi-node@2';

let world: World;
let sim: Simulator;
let slack: FakeSlack;
let serve: RunningServe;
let url: string;
let lines: string[];

beforeAll(async () => {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  world = await openWorld({ name: 'test-slash', clock, timers: { groupWait: '200ms', groupInterval: '5m' } });
  ({ sim, slack } = world);
  const logger = memoryLogger();
  lines = logger.lines;
  const config = loadConfig({ env: world.env({ RWX_ALLOWED_CHANNELS: CHANNEL }) });
  const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
  serve = await runServe(config, logger.log, {
    source: new KubeClusterSource(conn),
    port: 0,
    parts: { clock, tickMs: 0 },
    notifier: { backoffMs: 50, lockTtlMs: 2000 },
  });
  await serve.watcher.waitSynced(10_000);
  await serve.tick();
  // Past group_wait on the notifier's clock: the rollout incident gets its thread.
  await sim.advance(1_000);
  await new Promise((r) => setTimeout(r, 50));
  await serve.tick();
  await until(() => slack.roots().some((m) => m.metadata?.event_payload.key === ROLLOUT_KEY), 'the rollout root');
  // Bolt's receiver owns PORT (0 here: a free one); runServe logs where it listens.
  const started = lines
    .map((l) => JSON.parse(l) as { msg?: string; port?: number })
    .find((l) => l.msg === 'slack app started');
  url = `http://127.0.0.1:${started?.port ?? 0}/slack/events`;
}, 30_000);

afterAll(async () => {
  await serve?.stop();
  await world?.close();
});

/** POSTs `/rwx <text>` from #incidents, signed like Slack unless `signed` is false. */
function command(text: string, responseId: string, signed = true): Promise<{ status: number; body: string }> {
  const responseUrl = slack.responseUrl(responseId);
  return postSlashCommand({ url, secret: SIGNING_SECRET, channel: CHANNEL, text, responseUrl, signed });
}

const answer = async (id: string): Promise<string> => {
  await until(() => (slack.responses.get(id)?.length ?? 0) > 0, `the response_url answer ${id}`);
  return JSON.stringify(slack.responses.get(id));
};

describe('/rwx through rwx serve (HTTP mode)', () => {
  it('status: acked, then the open rollout incident with a link to its thread on the response_url', async () => {
    const ack = await command('status', 'status');
    expect(ack.status).toBe(200);
    const root = slack.roots().find((m) => m.metadata?.event_payload.key === ROLLOUT_KEY)!;
    const text = await answer('status');
    expect(text).toContain('ebs-csi-node');
    // The link Slack gives (chat.getPermalink), asked for once per thread: a second status reuses it.
    expect(text).toContain(`<https://fake.slack.com/archives/${CHANNEL}/p${root.ts.replace('.', '')}|`);
    await command('status', 'status-again');
    expect(await answer('status-again')).toContain(`https://fake.slack.com/archives/${CHANNEL}/p`);
    const asked = slack.callsOf('chat.getPermalink').filter((c) => c.args.message_ts === root.ts);
    expect(asked).toHaveLength(1);
  });

  it('drain node-19: BLOCK, because its stuck mounts follow the rollout', async () => {
    expect((await command('drain node-19', 'drain')).status).toBe(200);
    expect(await answer('drain')).toContain('*BLOCK*');
  });

  // The bot watches Leases as the CLI reads them: /rwx triage finds the controller's leader, as rwx triage does.
  it('triage: the leader Lease is seen, and node heartbeat Leases are not watched', async () => {
    expect((await command('triage', 'triage')).status).toBe(200);
    const text = await answer('triage');
    // every preflight check passes, the leader check included (unwatched Leases failed it: "no leader Lease found")
    expect(text).toMatch(/\*Preflight\* :white_check_mark: all \d+ checks passed/);
    expect(text).not.toMatch(/leader|Lease/);
    const leases = [...serve.watcher.index.all('leases')].map((l) => `${l.metadata?.namespace}/${l.metadata?.name}`);
    expect(leases).toContain('kube-system/ebs-csi-aws-com');
    expect(leases.filter((l) => l.startsWith('kube-node-lease/'))).toEqual([]);
  });

  it('an unsigned request gets 401 and no answer', async () => {
    expect((await command('status', 'unsigned', false)).status).toBe(401);
    expect(slack.responses.get('unsigned')).toBeUndefined();
  });
});
