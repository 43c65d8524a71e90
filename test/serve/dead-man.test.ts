// The dead-man notice (src/serve/dead-man.ts): two `rwx serve` replicas (runServe) on one Redis prefix against the
// simulator and the fake Slack. A short API blip says nothing; an outage longer than RWX_BLIND_AFTER is told in the
// channel once (not once per replica), and a reply in its thread says when the bot sees the cluster again.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { connect } from '../../src/kube/index.js';
import type { RunningServe } from '../../src/serve/app.js';
import { runServe } from '../../src/serve/main.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import { until } from '../support/until.js';
import { openWorld } from '../support/world.js';
import { memoryLogger } from './harness.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const NOTICE = /cannot see the cluster \*prod-eu-1\* since <!date\^\d+\^/;

describe('dead-man notice', () => {
  it('a blip says nothing; a longer outage is told once across replicas and cleared when the API answers', async () => {
    const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
    // The product's group timers, so only the notice is in the channel for as long as the test looks.
    const timers = { groupWait: '30s', groupInterval: '5m' };
    const world = await openWorld({ name: 'test-deadman', scenario: 'scenarios/node-fault.yaml', clock, timers });
    cleanups.push(() => world.close());
    const { sim, slack } = world;
    const config = loadConfig({ env: world.env({ RWX_CLUSTER_NAME: 'prod-eu-1', RWX_BLIND_AFTER: '30s' }) });
    const replicas: RunningServe[] = [];
    for (let i = 0; i < 2; i++) {
      const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
      const serve = await runServe(config, memoryLogger().log, {
        source: new KubeClusterSource(conn),
        bolt: false,
        parts: { clock, tickMs: 0, port: undefined, reflector: { backoffInitialMs: 50 } },
      });
      cleanups.push(() => serve.stop());
      replicas.push(serve);
    }
    const tickAll = async () => {
      for (const r of replicas) await r.tick();
    };
    const notices = () => slack.roots('C0INCIDENT').filter((m) => NOTICE.test(m.text));
    const down = async () => {
      sim.faults.down('refused');
      await until(() => replicas.every((r) => !r.watcher.reachable()), 'every replica sees the API down');
    };
    const up = async () => {
      sim.faults.up();
      await until(() => replicas.every((r) => r.watcher.current()), 'every replica current again');
    };
    for (const r of replicas) await r.watcher.waitSynced(10_000);
    await tickAll();

    // A blip shorter than RWX_BLIND_AFTER: nothing in the channel.
    await down();
    await tickAll();
    clock.advance(20_000);
    await tickAll();
    await up();
    await tickAll();
    clock.advance(20_000);
    await tickAll();
    expect(notices()).toEqual([]);

    // Longer: one notice, though both replicas are blind and tick again.
    await down();
    await tickAll();
    clock.advance(31_000);
    await tickAll();
    await tickAll();
    expect(notices()).toHaveLength(1);
    const [notice] = notices();
    expect(notice!.text).toMatch(/^:warning: The bot cannot see the cluster/);

    // Seen again: one reply in the notice's thread, none in the channel; the next outage may be told again.
    await up();
    await tickAll();
    await tickAll();
    const replies = slack.replies(notice!.ts);
    expect(replies.map((m) => m.text)).toEqual([
      expect.stringMatching(/^:white_check_mark: The bot sees the cluster \*prod-eu-1\* again at <!date\^\d+\^/),
    ]);
    expect(notices()).toHaveLength(1);
  });
});
