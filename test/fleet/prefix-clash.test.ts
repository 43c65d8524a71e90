// Two clusters' bots on one Redis with the same RWX_REDIS_PREFIX and no RWX_FLEET: the second refuses to start with
// one line naming both clusters and the fix; a bot that finds another cluster's claim later (Redis came back empty
// and the other claimed first) stops evaluating, says so once, and /readyz names it. Real `rwx serve` processes,
// the simulator, the fake Slack, the shared Redis under a unique prefix.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeChild, type ServeChild } from '../faults/child.js';
import { freePort } from '../support/free-port.js';
import { until } from '../support/until.js';
import { REDIS_URL, openWorld, type World } from '../support/world.js';

const BIN = join(import.meta.dirname, '../../bin/rwx.js');
let world: World | undefined;
let a: ServeChild | undefined;
const redis = new Redis(REDIS_URL, { lazyConnect: true });
afterEach(async () => {
  a?.process.kill('SIGKILL');
  await a?.exited;
  await world?.close();
  a = world = undefined;
  redis.disconnect();
});

/** `rwx serve` with `env`, run to its end: its exit code and output. */
async function refused(env: Record<string, string>, kubeconfig: string): Promise<{ code: number | null; out: string }> {
  const p = spawn(process.execPath, [BIN, 'serve', '--kubeconfig', kubeconfig], {
    env: { PATH: process.env.PATH ?? '', PORT: String(await freePort()), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (c: Buffer) => (out += c.toString()));
  p.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
  return { code, out };
}

describe('two clusters on one Redis prefix without RWX_FLEET', () => {
  it('the second refuses to start naming both; the first, finding the clash later, stops evaluating', async () => {
    // The product's group timers: the bots' threads are not what this test looks at.
    const w = (world = await openWorld({ name: 'clash', timers: { groupWait: '30s', groupInterval: '5m' } }));
    const { sim, prefix } = w;
    const env = (cluster: string) => w.env({ RWX_CLUSTER_NAME: cluster });
    a = await startServeChild(sim.kubeconfigPath, env('prod-a'));
    await until(() => a!.lines.some((l) => /evaluator lease taken/.test(l)), 'prod-a evaluating');

    const b = await refused(env('prod-b'), sim.kubeconfigPath);
    expect(b.code).toBe(1);
    const clash = b.out.split('\n').filter((l) => /another cluster/.test(l));
    expect(clash).toHaveLength(1);
    expect(clash[0]).toContain(
      `rwx serve: another cluster, "prod-a", writes under RWX_REDIS_PREFIX "${prefix}" on this Redis and this one is "prod-b"`,
    );
    expect(clash[0]).toMatch(/Give each cluster its own RWX_REDIS_PREFIX, or set RWX_FLEET=true/);

    // Redis came back empty and prod-b claimed first: prod-a stops evaluating, says so once, /readyz names it.
    await redis.connect();
    await redis.set(`${prefix}:cluster`, 'prod-b', 'PX', 60_000);
    await until(() => a!.lines.some((l) => /evaluator lease given up/.test(l)), 'prod-a standby', 10_000);
    const ready = await a.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(/^prefix: another cluster, "prod-b", writes under/m);
    await new Promise((r) => setTimeout(r, 2_500)); // a few ticks: the line is not repeated
    expect(a.lines.filter((l) => /another cluster/.test(l))).toHaveLength(1);
    await redis.del(`${prefix}:cluster`, `${prefix}:evaluator`);
    await until(async () => (await a!.status('/readyz')) === 200, 'prod-a ready again once the claim is gone', 10_000);
  }, 90_000);
});
