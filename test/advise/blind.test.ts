// Blind => UNKNOWN: an answer that depends on objects the bot could not read says so and is never OK. The
// simulator's 403 knob for pods, events and volumeattachments, and the API server down, through the real CLI
// (live reads over HTTP), the watcher's cache behind /rwx drain, and the root message.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { parseCommand, runCommand, type CommandServices } from '../../src/commands/index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { connect, project } from '../../src/kube/index.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { triage } from '../../src/triage/index.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import { ManualTimers } from '../../src/watch/timers.js';
import { ClusterWatcher, NOT_SYNCED } from '../../src/watch/watcher.js';
import { rwx } from '../correlate/cli-run.js';
import { SIM_START, scenarioPath, simSnapshot, testSim } from '../support/sim.js';
import { until } from '../support/until.js';

const NOW = new Date(SIM_START).toISOString();

/** `rwx drain-check NODE` and `rwx scan` against the live simulator. */
async function cli(kubeconfig: string, ...argv: string[]) {
  return rwx(...argv, '--kubeconfig', kubeconfig, '--now', NOW);
}

describe('drain-check and scan when a kind is forbidden (live reads, 403 from the simulator)', () => {
  it.each([
    // without pods nothing is stuck anywhere: that is not "nothing is stuck"
    ['pods', 'pods (forbidden', 'which pods are stuck'],
    // without events a stuck pod's cause is unknown
    ['events', 'events (forbidden', 'why a pod is stuck'],
    // without attachments a stale one cannot be ruled out
    ['volumeattachments', 'volumeAttachments (forbidden', 'stale volume attachments'],
  ])(
    '%s forbidden: a node that is OK with full access is UNKNOWN, exit 5, saying what is undecided',
    async (resource, what, undecided) => {
      const { sim } = await testSim(scenarioPath('propagation-loss'));
      expect((await cli(sim.kubeconfigPath, 'drain-check', 'node-02')).code).toBe(0);
      sim.faults.forbid(resource);
      const r = await cli(sim.kubeconfigPath, 'drain-check', 'node-02');
      expect(r.code).toBe(5);
      expect(r.stdout).toMatch(/^UNKNOWN: node-02\nCannot tell whether node-02 is safe to drain\. Could not read /);
      expect(r.stdout).toContain(what);
      expect(r.stdout).toContain(undecided);
      expect(r.stdout).toContain('1. Do not drain node-02 on this answer.');
      expect(r.stdout).toContain(`Grant the bot get, list and watch on`);
    },
  );

  it('a BLOCK stands when attachments cannot be read (more data can only add reasons not to drain), and says so', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.forbid('volumeattachments');
    const r = await cli(sim.kubeconfigPath, 'drain-check', 'node-19', '-o', 'json');
    expect(r.code).toBe(3);
    const advice = JSON.parse(r.stdout) as { decision: string; steps: string[]; blind: { kind: string }[] };
    expect(advice.decision).toBe('BLOCK');
    expect(advice.blind.map((b) => b.kind)).toEqual(['volumeAttachments']);
    expect(advice.steps.at(-1)).toMatch(/^Could not read volumeAttachments \(forbidden/);
  });

  it('scan with pods forbidden: "cannot tell", exit 5, never "No incidents"', async () => {
    const { sim } = await testSim(scenarioPath('node-fault'));
    expect((await cli(sim.kubeconfigPath, 'scan')).code).toBe(2);
    sim.faults.forbid('pods');
    const r = await cli(sim.kubeconfigPath, 'scan');
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/^Cannot tell whether there are incidents: none found in what could be read\.\n/);
    expect(r.stdout).toContain('Could not read pods (forbidden');
    expect(r.stdout).not.toContain('No incidents');
  });

  it('scan with pods forbidden still shows what it found (a missed CronJob), under "Incomplete view"', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.forbid('pods');
    const r = await cli(sim.kubeconfigPath, 'scan');
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Incomplete view\. Could not read pods \(forbidden/);
  });

  it('scan with events forbidden: the incidents it still finds, under a line saying the view is incomplete', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.forbid('events');
    const r = await cli(sim.kubeconfigPath, 'scan', '-o', 'json');
    const out = JSON.parse(r.stdout) as { incidents: unknown[]; blind: { kind: string }[] };
    expect(out.blind.map((b) => b.kind)).toEqual(['events']);
    expect(r.code).toBe(out.incidents.length > 0 ? 2 : 5);
  });

  it('the API server down: an error (exit 1) naming it, never OK', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.down('refused');
    const r = await cli(sim.kubeconfigPath, 'drain-check', 'node-02');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unreachable|refused|ECONNREFUSED/i);
  });
});

describe('the bot: its cache says what it could not read, and /rwx drain answers UNKNOWN from it', () => {
  /** /rwx drain over `index`, evaluated as `rwx serve` does. */
  function services(index: ClusterIndex, now: number): CommandServices {
    return {
      clock: new ManualClock(now),
      cluster: { index: () => index },
      triage,
      evaluate: (idx, at) => evaluate(idx, { now: at }),
      openIncidents: async () => [],
    };
  }

  it('a watch not synced yet is unreadable, then readable once listed', async () => {
    const { sim, clock } = await testSim(scenarioPath('propagation-loss'));
    const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
    const watcher = new ClusterWatcher({
      source: new KubeClusterSource(conn),
      kinds: ['pods', 'nodes'],
      project,
      clock,
    });
    expect(watcher.index.unreadable).toEqual([
      { kind: 'pods', reason: NOT_SYNCED },
      { kind: 'nodes', reason: NOT_SYNCED },
    ]);
    const { response } = await runCommand(parseCommand('drain node-02'), services(watcher.index, clock.now()));
    expect(response.text).toContain(':grey_question: *UNKNOWN*');
    expect(response.text).toContain('pods (watch not synced yet)');
    watcher.start();
    try {
      await until(() => watcher.synced(), 'sync');
      expect(watcher.index.readable('pods')).toBe(true);
    } finally {
      watcher.stop();
    }
  });

  it('pods forbidden: the kind stays unreadable with the reason; /rwx drain says UNKNOWN in words; access back: readable', async () => {
    const { sim, clock } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.forbid('pods');
    const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
    const timers = new ManualTimers(clock);
    const watcher = new ClusterWatcher({
      source: new KubeClusterSource(conn),
      kinds: ['pods', 'nodes'],
      project,
      clock,
      timers,
      reflector: { backoffInitialMs: 1000, backoffMaxMs: 1000 },
    });
    watcher.start();
    try {
      await until(() => /forbidden/.test(watcher.index.unreadable.find((u) => u.kind === 'pods')?.reason ?? ''), '403');
      const { response } = await runCommand(parseCommand('drain node-02'), services(watcher.index, clock.now()));
      expect(response.text).toContain(':grey_question: *UNKNOWN*');
      expect(response.text).toMatch(/Could not read pods \(forbidden/);
      expect(response.text).toContain('which pods are stuck, on which nodes, and what a drain would evict');
      expect(response.text).not.toContain('*OK*');
      sim.faults.clear();
      await sim.advance(1000);
      timers.runDue();
      await until(() => watcher.index.readable('pods'), 'pods readable again');
    } finally {
      watcher.stop();
    }
  });

  it('the root message says the view is incomplete while it is', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    const snapshot = simSnapshot(sim);
    snapshot.unreadable.push({ kind: 'volumeAttachments', reason: 'forbidden: list denied' });
    const { incidents, blind } = evaluate(ClusterIndex.fromSnapshot(snapshot), { now: sim.now() });
    expect(blind.map((b) => b.kind)).toEqual(['volumeAttachments']);
    const root = JSON.stringify(renderIncidentRoot(incidents[0]!).blocks);
    expect(root).toContain('*Incomplete view.* Could not read volumeAttachments (forbidden: list denied)');
  });
});
