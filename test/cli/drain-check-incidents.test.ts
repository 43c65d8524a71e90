// `rwx drain-check` consults the bot's open incidents, as /rwx drain does: after a partial recovery of the rollout
// incident (postgres-2 mounts, the other pods stay stuck) a fresh look no longer sees the rollout, but the open
// incident keeps its nodes blocked. Without the bot's Redis the answer says it did not consult them; with a Redis
// that does not answer it cannot tell (UNKNOWN). The running bot (simulator over HTTP, real Redis, fake Slack).
import { Readable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { DrainAdvice } from '../../src/domain/incident.js';
import { REDIS_URL, harness, type Harness } from '../serve/harness.js';
import { until } from '../support/until.js';
import { rwx } from '../correlate/cli-run.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** drain-check NODE against the simulator as of its clock, with `extra` flags, as JSON. */
async function drainCheck(x: Harness, node: string, ...extra: string[]): Promise<{ code: number; a: DrainAdvice }> {
  const now = new Date(x.clock.now()).toISOString();
  const r = await rwx('drain-check', node, '--kubeconfig', x.sim.kubeconfigPath, '--now', now, '-o', 'json', ...extra);
  return { code: r.code, a: JSON.parse(r.stdout) as DrainAdvice };
}

describe('rwx drain-check after a partial recovery', () => {
  it('blocks a revision-2 node with the open incidents, says when it did not consult them, UNKNOWN without Redis', async () => {
    h = await harness('scenarios/propagation-loss.yaml');
    await h.start();
    await h.advance(1_000);
    await until(() => h!.slack.roots().length === 1, 'the root');
    const bot = ['--redis', REDIS_URL, '--redis-prefix', h.prefix];
    // node-12 runs revision 2 and holds no stuck pod: blocked while the rollout is known.
    expect((await drainCheck(h, 'node-12', ...bot)).a.decision).toBe('BLOCK');

    await h.sim.apply({
      set: [{ kind: 'Pod', namespace: 'platform', name: 'postgres-2', fields: { 'status.phase': 'Running' } }],
    });
    for (let i = 0; i < 3; i++) await h.advance(2_000);
    expect(h.serve!.pipeline.current().map((i) => i.verdict)).toEqual(['FOLLOWS_ROLLOUT']);

    // With the bot's incidents: the same BLOCK as /rwx drain.
    const withStore = await drainCheck(h, 'node-12', ...bot);
    expect([withStore.code, withStore.a.decision]).toEqual([3, 'BLOCK']);
    expect(withStore.a.openIncidents).toBeUndefined();

    // Without: the fresh look alone no longer blocks node-12, and the answer says what it did not consult.
    const without = await drainCheck(h, 'node-12');
    expect(without.a.decision).not.toBe('BLOCK');
    expect(without.a.openIncidents).toBe('not consulted');
    expect(without.a.steps.at(-1)).toMatch(/open incidents were not consulted/);

    // A Redis given but not answering: cannot tell.
    const away = await drainCheck(h, 'node-12', '--redis', 'redis://127.0.0.1:1');
    expect([away.code, away.a.decision]).toEqual([5, 'UNKNOWN']);
    expect(away.a.blind?.map((b) => b.kind)).toContain('open incidents');
    expect(away.a.steps.join(' ')).toMatch(/Make the bot's Redis answer/);
    // The bot's Redis is not one to start: the way out is its address, or answering without it.
    const said = JSON.stringify(away.a);
    expect(said).toMatch(/no Redis answers at redis:\/\/127\.0\.0\.1:1\/? \(ECONNREFUSED\); check --redis/);
    expect(said).not.toMatch(/start one/);
  });
});

/** drain-check run in-process with `env` (RWX_FLEET, RWX_CLUSTER_NAME). */
async function drainCheckEnv(x: Harness, node: string, env: Record<string, string>, ...extra: string[]) {
  let stdout = '';
  let stderr = '';
  const now = new Date(x.clock.now()).toISOString();
  const argv = ['drain-check', node, '--kubeconfig', x.sim.kubeconfigPath, '--now', now, ...extra];
  const code = await main(argv, {
    stdout: { write: (s: string) => void (stdout += s) },
    stderr: { write: (s: string) => void (stderr += s) },
    stdin: Readable.from([]),
    env,
  });
  return { code, stdout, stderr };
}

describe('rwx drain-check in a fleet', () => {
  it('consults exactly the open incidents of the cluster it is told, and says whose they are', async () => {
    h = await harness('scenarios/propagation-loss.yaml', undefined, {
      RWX_FLEET: 'true',
      RWX_CLUSTER_NAME: 'prod-eu-1',
    });
    await h.start();
    await h.advance(1_000);
    await until(() => h!.slack.roots().length === 1, 'the root');
    await h.sim.apply({
      set: [{ kind: 'Pod', namespace: 'platform', name: 'postgres-2', fields: { 'status.phase': 'Running' } }],
    });
    for (let i = 0; i < 3; i++) await h.advance(2_000);
    const bot = ['--redis', REDIS_URL, '--redis-prefix', h.prefix];

    // The cluster's own open rollout incident blocks node-12, named by the flag or as `rwx serve` is configured.
    const own = await drainCheck(h, 'node-12', ...bot, '--cluster', 'prod-eu-1');
    expect([own.code, own.a.decision]).toEqual([3, 'BLOCK']);
    expect(own.a).toMatchObject({ incidentsOf: { prefix: `${h.prefix}:c:prod-eu-1`, cluster: 'prod-eu-1' } });
    const fromEnv = await drainCheckEnv(h, 'node-12', { RWX_FLEET: 'true', RWX_CLUSTER_NAME: 'prod-eu-1' }, ...bot);
    expect(fromEnv.code).toBe(3);
    expect(fromEnv.stdout).toMatch(/^Open incidents of: cluster prod-eu-1, Redis prefix rwx-test-\w+:c:prod-eu-1$/m);

    // Another cluster of the fleet has no open incident: its answer is the fresh look's, not prod-eu-1's BLOCK.
    const other = await drainCheck(h, 'node-12', ...bot, '--cluster', 'prod-us-1');
    expect(other.a.decision).not.toBe('BLOCK');
    expect(other.a.openIncidents).toBeUndefined();
    // A fleet's prefix holds no records of its own: without a cluster named it refuses rather than say OK.
    const r = new Redis(REDIS_URL);
    await r.hset(`${h.prefix}:fleet:heartbeats`, 'prod-eu-1', '{}', 'prod-us-1', '{}'); // as the members beat
    await r.quit();
    const base = await drainCheckEnv(h, 'node-12', {}, ...bot);
    expect([base.code, base.stderr]).toEqual([
      1,
      expect.stringMatching(/holds a fleet \(prod-eu-1, prod-us-1\): name the cluster to check with --cluster/),
    ]);
    const unnamed = await drainCheckEnv(h, 'node-12', { RWX_FLEET: 'on' }, ...bot);
    expect([unnamed.code, unnamed.stderr]).toEqual([
      1,
      expect.stringMatching(/RWX_FLEET is on: name the cluster to check with --cluster or RWX_CLUSTER_NAME/),
    ]);
  });
});
