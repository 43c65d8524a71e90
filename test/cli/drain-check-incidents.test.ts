// `rwx drain-check` consults the bot's open incidents, as /rwx drain does: after a partial recovery of the seed's
// rollout (postgres-2 mounts, the other pods stay stuck) a fresh look no longer sees the rollout, but the open
// incident keeps its nodes blocked. Without the bot's Redis the answer says it did not consult them; with a Redis
// that does not answer it cannot tell (UNKNOWN). The running bot (simulator over HTTP, real Redis, fake Slack).
import { afterEach, describe, expect, it } from 'vitest';
import type { DrainAdvice } from '../../src/domain/incident.js';
import { REDIS_URL, harness, until, type Harness } from '../serve/harness.js';
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
  });
});
