// The real ClusterSource + ClusterWatcher against the API simulator over HTTP: list/watch, a 410 relist, the
// watchdog on a stalled watch, recovery from a dropped connection, and read-only access in the audit log.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { connect, project } from '../../src/kube/index.js';
import { parseScenario, startSimulator, type Simulator } from '@rwx/kube-sim';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import { ManualTimers } from '../../src/watch/timers.js';
import { ClusterWatcher } from '../../src/watch/watcher.js';
import { until } from '../support/until.js';

const T0 = Date.parse('2026-01-01T06:00:00Z');

const scenario = parseScenario(
  {
    name: 'watch-basics',
    objects: [
      { kind: 'Node', metadata: { name: 'node-1' } },
      {
        kind: 'Pod',
        metadata: { name: 'a', namespace: 'ns' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x' }] },
        status: { phase: 'Running' },
      },
      {
        kind: 'Pod',
        metadata: { name: 'b', namespace: 'ns' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x' }] },
        status: { phase: 'Running' },
      },
    ],
  },
  'inline',
);

let sim: Simulator | undefined;
let watcher: ClusterWatcher | undefined;
afterEach(async () => {
  watcher?.stop();
  await sim?.stop();
  sim = undefined;
  watcher = undefined;
});

async function setup() {
  const clock = new ManualClock(T0);
  const timers = new ManualTimers(clock);
  sim = await startSimulator({ scenario, clock });
  const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
  const restarts: string[] = [];
  watcher = new ClusterWatcher({
    source: new KubeClusterSource(conn),
    kinds: ['pods', 'nodes'],
    project,
    clock,
    timers,
    metrics: { restart: (k, r) => restarts.push(`${k}:${r}`), apiReachable: () => undefined, event: () => undefined },
    reflector: { stallMs: 120_000, backoffInitialMs: 1000, backoffMaxMs: 1000 },
  });
  watcher.start();
  await until(() => watcher!.synced(), 'sync');
  await until(() => sim!.audit.filter((a) => a.verb === 'watch').length >= 2, 'both watches open');
  return { sim, watcher, clock, timers, restarts };
}

const podC = {
  kind: 'Pod',
  metadata: { name: 'c', namespace: 'ns' },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x' }] },
  status: { phase: 'Pending' },
};

describe('KubeClusterSource + ClusterWatcher over the simulator', () => {
  it('lists, then applies watch events to the cache', async () => {
    const { sim, watcher } = await setup();
    expect(watcher.index.count('pods')).toBe(2);
    sim.apply({ add: [podC] });
    await until(() => watcher.index.get('pods', 'ns/c') !== undefined, 'ADDED pod c');
    sim.apply({ delete: [{ kind: 'Pod', namespace: 'ns', name: 'a' }] });
    await until(() => watcher.index.get('pods', 'ns/a') === undefined, 'DELETED pod a');
  });

  it('relists after a 410 and drops what was deleted meanwhile', async () => {
    const { sim, watcher, timers, restarts } = await setup();
    sim.faults.stallWatches(); // the delete below is never delivered on this stream
    sim.apply({ delete: [{ kind: 'Pod', namespace: 'ns', name: 'b' }] });
    sim.compact();
    sim.faults.dropWatches();
    sim.faults.stallWatches(false);
    await until(() => watcher.status().every((s) => s.state === 'waiting'), 'the drop to be noticed by both watches');
    await sim.advance(1000);
    timers.runDue(); // backoff over: rewatch from the old resourceVersion -> ERROR 410 -> relist
    await until(() => restarts.includes('pods:gone'), '410 relist');
    await until(
      () => watcher.index.get('pods', 'ns/b') === undefined && watcher.status().every((s) => s.state === 'watching'),
      'relisted cache',
    );
    expect(watcher.index.get('pods', 'ns/a')).toBeDefined();
  });

  it('the watchdog restarts a stalled watch, and events flow again', async () => {
    const { sim, watcher, restarts } = await setup();
    sim.faults.stallWatches();
    await sim.advance(119_000);
    expect(watcher.tick()).toBe(0);
    await sim.advance(2_000);
    expect(watcher.tick()).toBe(2); // pods and nodes both silent
    expect(restarts.filter((r) => r.endsWith(':stalled'))).toHaveLength(2);
    sim.faults.stallWatches(false);
    sim.apply({ add: [podC] });
    await until(() => watcher.index.get('pods', 'ns/c') !== undefined, 'events after the restart');
  });

  it("works over HTTPS with the kubeconfig's CA and bearer token (as against a real API server)", async () => {
    sim = await startSimulator({ scenario, clock: new ManualClock(T0), tls: true });
    const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
    watcher = new ClusterWatcher({ source: new KubeClusterSource(conn), kinds: ['pods'], project });
    watcher.start();
    await until(() => watcher!.synced(), 'sync over https');
    await until(() => sim!.audit.some((a) => a.verb === 'watch'), 'the watch to open');
    sim.apply({ add: [podC] });
    await until(() => watcher!.index.get('pods', 'ns/c') !== undefined, 'an event over https');
  });

  it('reads only: the audit log has get/list/watch and nothing else', async () => {
    const { sim } = await setup();
    const verbs = new Set(sim.audit.map((a) => a.verb));
    expect([...verbs].every((v) => ['get', 'list', 'watch'].includes(v))).toBe(true);
    expect(verbs.has('watch')).toBe(true);
    expect(sim.audit.some((a) => a.verb === 'watch' && a.query.allowWatchBookmarks === 'true')).toBe(true);
  });
});
