// Drain advice with the node agents' stale-stage check (src/advise/stale-stage.ts): a volume still staged on the
// node with no pod there is CAUTION when it holds the volume attached (a drain does not release it), a note under OK
// when it is a leak, and without a report from the node's agent the answer says the check was not possible. Pure:
// a cluster and the agents' answers in, the advice out; one comment per case.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { DrainAdvice } from '../../src/domain/incident.js';
import type { StagedVolume } from '../../src/domain/node-report.js';
import type { NodeReports, NodeReportState } from '../../src/domain/proof.js';
import { staleStageSteps, staleStageText, stagesNotCheckedText } from '../../src/advise/stale-stage.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { adviceFor } from '../../src/triage/advice.js';
import { healthyReport } from '../agent/report-fixtures.js';
import { DRIVER, NOW, va } from '../triage/fixtures.js';
import { gm, orphan, shopCluster } from './stale-stage-fixtures.js';
import { NOW as ROLLOUT_NOW, snapshotOf } from '../detect/builders.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';

const reportWith = (node: string, ...volumes: StagedVolume[]): NodeReportState => ({
  kind: 'report',
  report: healthyReport(node, { stagedVolumes: { status: volumes.length ? 'orphaned' : 'ok', volumes } }),
  at: NOW,
});
const asked = (states: Record<string, NodeReportState>): NodeReports => ({
  kind: 'asked',
  states: new Map(Object.entries(states)),
});

function drain(index: ClusterIndex, node: string, nodeReports?: NodeReports, now = NOW): DrainAdvice {
  return evaluate(index, { now, ...(nodeReports ? { nodeReports } : {}) }).drain(node);
}
/** Drain advice on the rollout incident's cluster, at its evaluation time. */
const rolloutDrain = (index: ClusterIndex, node: string, nodeReports?: NodeReports) =>
  drain(index, node, nodeReports, ROLLOUT_NOW);

describe('a volume still staged with no pod on the node', () => {
  it('an RWO volume still attached there: CAUTION, the stale attachment first, then the stage and what it blocks', () => {
    // shop/db's pod runs on node-01; node-02 still stages pvc-db and holds its VolumeAttachment (an orphaned stage).
    const index = shopCluster((s) => s.volumeAttachments.push(va('csi-db-02', 'pvc-db', 'node-02')));
    const without = drain(index, 'node-02');
    const a = drain(index, 'node-02', asked({ 'node-02': reportWith('node-02', orphan('pvc-db', '3f81')) }));
    expect(a.decision).toBe('CAUTION');
    expect(a.reason).toBe(
      `${without.reason} node-02 still stages volume pvc-db (claim shop/db, ReadWriteOnce, ${DRIVER}) at ${gm('3f81')} with no pod on node-02 using it: draining node-02 does not unstage it, and it keeps the volume attached to node-02 (VolumeAttachment csi-db-02): pods of shop/db on other nodes cannot attach it until it is cleared.`,
    );
    expect(a.steps).toEqual([...without.steps, ...staleStageSteps('node-02', [gm('3f81')])]);
    expect(a.steps.at(-1)).toBe(
      'Check the node again with rwx node node-02: it no longer lists the stage as ORPHANED.',
    );
    expect(a.stages).toMatchObject({ checked: true, stale: [{ volume: 'pvc-db', holds: 'attached' }] });
  });

  it('an RWO volume attached there too recently to look stale to the API: the stage alone makes it CAUTION', () => {
    const index = shopCluster((s) => {
      const fresh = va('csi-db-02', 'pvc-db', 'node-02');
      fresh.metadata!.creationTimestamp = new Date(NOW - 60_000).toISOString();
      s.volumeAttachments.push(fresh);
    });
    expect(drain(index, 'node-02').decision).toBe('OK');
    const a = drain(index, 'node-02', asked({ 'node-02': reportWith('node-02', orphan('pvc-db', '3f81')) }));
    expect(a.decision).toBe('CAUTION');
    expect(a.reason).toMatch(
      /^node-02 still stages volume pvc-db .* keeps the volume attached to node-02 \(VolumeAttachment csi-db-02\)/,
    );
    expect(a.steps).toEqual(staleStageSteps('node-02', [gm('3f81')]));
  });

  it('a holding stage and a leak on one node: the holding one is the reason, the leak a note among the steps', () => {
    const index = shopCluster((s) => {
      const fresh = va('csi-db-02', 'pvc-db', 'node-02');
      fresh.metadata!.creationTimestamp = new Date(NOW - 60_000).toISOString();
      s.volumeAttachments.push(fresh);
    });
    const both = reportWith('node-02', orphan('pvc-db', '3f81'), orphan('pvc-files', '9c1d'));
    const a = drain(index, 'node-02', asked({ 'node-02': both }));
    expect(a.decision).toBe('CAUTION');
    expect(a.reason).toMatch(/^node-02 still stages volume pvc-db .*until it is cleared\.$/);
    expect(a.reason).not.toContain('pvc-files');
    expect(a.steps[0]).toMatch(/^node-02 still stages volume pvc-files .* it is a leak/);
    expect(a.steps.slice(1)).toEqual(staleStageSteps('node-02', [gm('3f81'), gm('9c1d')]));
  });

  it('an RWX volume: OK (it stops no pod elsewhere), with the leak and how to clear it', () => {
    const index = shopCluster();
    const a = drain(index, 'node-02', asked({ 'node-02': reportWith('node-02', orphan('pvc-files', '9c1d')) }));
    expect(a.decision).toBe('OK');
    expect(a.steps[0]).toBe(
      `node-02 still stages volume pvc-files (claim shop/files, ReadWriteMany, ${DRIVER}) at ${gm('9c1d')} with no pod on node-02 using it: draining node-02 does not unstage it. It stops no pod on another node, but it is a leak: the volume stays mounted on node-02 until it is cleared.`,
    );
    expect(a.steps.slice(1)).toEqual(staleStageSteps('node-02', [gm('9c1d')]));
  });

  it('an RWO volume not attached there (VolumeAttachments read, none on node-02): a leak, not CAUTION', () => {
    const a = drain(shopCluster(), 'node-02', asked({ 'node-02': reportWith('node-02', orphan('pvc-db', '3f81')) }));
    expect(a.decision).toBe('OK');
    expect(a.stages).toMatchObject({ checked: true, stale: [{ holds: 'leak' }] });
  });

  it('a volume the cluster has no PV for: CAUTION, since whether it holds an attachment cannot be told', () => {
    // The agent could not name the PV (no vol_data.json): only the staging directory's hash.
    const a = drain(shopCluster(), 'node-02', asked({ 'node-02': reportWith('node-02', orphan(undefined, 'ab12')) }));
    expect(a.decision).toBe('CAUTION');
    expect(a.reason).toMatch(/no PV named ab12 is known, so whether it keeps the volume attached to node-02 cannot/);
  });

  it('a pod of the claim on the node: not stale (staged before published), nothing added', () => {
    // shop/files' pod runs on node-01, whose agent sees the stage with no bind mount yet.
    const a = drain(shopCluster(), 'node-01', asked({ 'node-01': reportWith('node-01', orphan('pvc-files', '9c1d')) }));
    expect(a.decision).toBe('OK');
    expect(a.steps).toEqual([]);
    expect(a.stages).toEqual({ checked: true, stale: [] });
  });

  it('a pod on the node whose volume directory still names it: not stale (a pod starting or stopping)', () => {
    // The agent saw pod UID uid-pod-shop-db-0's directory name the volume; that pod runs on node-01.
    const stage = orphan(undefined, 'ab12', ['uid-pod-shop-db-0']);
    const a = drain(shopCluster(), 'node-01', asked({ 'node-01': reportWith('node-01', stage) }));
    expect(a.stages).toEqual({ checked: true, stale: [] });
  });

  it('on a BLOCK node: the BLOCK stands, the stage and its steps follow what to do instead', () => {
    const rollout = ClusterIndex.fromSnapshot(snapshotOf(rolloutObjects()));
    const before = rolloutDrain(rollout, 'node-19');
    const a = rolloutDrain(rollout, 'node-19', asked({ 'node-19': reportWith('node-19', orphan(undefined, 'ab12')) }));
    expect(a.decision).toBe('BLOCK');
    expect(a.reason).toBe(before.reason);
    expect(a.steps.slice(0, before.steps.length)).toEqual(before.steps);
    expect(a.steps[before.steps.length]).toMatch(/^node-19 still stages volume ab12 /);
  });

  it("a simulated agent's stage says so", () => {
    const state = reportWith('node-02', orphan('pvc-files', '9c1d'));
    if (state.kind === 'report') state.report.simulated = true;
    const a = drain(shopCluster(), 'node-02', asked({ 'node-02': state }));
    expect(a.steps[0]).toMatch(/^\(simulated agent\) node-02 still stages/);
  });
});

describe('never OK from ignorance: when the stage check was not possible, the answer says so', () => {
  const notChecked = (reason: string) => stagesNotCheckedText('node-02', reason);
  it.each<[string, NodeReports, string]>([
    // no agent pod on the node: how to enable it
    [
      'no agent',
      asked({}),
      'no rwx agent runs on node-02; the node agent is opt-in: kubectl apply -k deploy/overlays/socket-mode-agent, add deploy/components/agent to your overlay, or set agent.enabled=true in the Helm chart (docs/agent.md)',
    ],
    // the agent timed out (or answered garbage): its reason
    [
      'agent unavailable',
      asked({ 'node-02': { kind: 'unavailable', reason: 'the agent did not answer within 5000 ms', at: NOW } }),
      'the rwx agent on node-02 could not be read: the agent did not answer within 5000 ms',
    ],
    // the first request is still in flight
    ['pending', asked({ 'node-02': { kind: 'pending' } }), 'the rwx agent on node-02 has not answered yet'],
    // a snapshot: nothing asked
    ['not asked', { kind: 'not-asked', reason: 'a snapshot was read' }, 'a snapshot was read'],
  ])('%s', (_name, reports, reason) => {
    const a = drain(shopCluster(), 'node-02', reports);
    expect(a.decision).toBe('OK');
    expect(a.steps.at(-1)).toBe(notChecked(reason));
    expect(a.stages).toEqual({ checked: false, reason });
  });

  it('an agent that could not read the kubelet dir: not checked, with its problem', () => {
    const r = healthyReport('node-02', {
      stagedVolumes: { status: 'unknown', volumes: [] },
      problems: ['cannot list /var/lib/kubelet/plugins/kubernetes.io/csi: ENOENT'],
    });
    const a = drain(shopCluster(), 'node-02', asked({ 'node-02': { kind: 'report', report: r, at: NOW } }));
    expect(a.decision).toBe('OK');
    expect(a.steps.at(-1)).toBe(
      notChecked(
        'the rwx agent on node-02 could not read its staged volumes: cannot list /var/lib/kubelet/plugins/kubernetes.io/csi: ENOENT',
      ),
    );
  });

  it('a BLOCK needs no such note: more data can only add reasons not to drain', () => {
    const rollout = ClusterIndex.fromSnapshot(snapshotOf(rolloutObjects()));
    const a = rolloutDrain(rollout, 'node-19', asked({}));
    expect(a.decision).toBe('BLOCK');
    expect(a).toEqual({ ...rolloutDrain(rollout, 'node-19'), stages: expect.anything() });
  });

  it('a checked node with nothing stale adds no text', () => {
    const a = drain(shopCluster(), 'node-02', asked({ 'node-02': reportWith('node-02') }));
    expect(a).toEqual({ ...drain(shopCluster(), 'node-02'), stages: { checked: true, stale: [] } });
  });
});

describe('one recovery order', () => {
  it("triage's STALE_ATTACHMENT steps are the drain's, numbered", () => {
    const path = gm('9c1d');
    expect(adviceFor('STALE_ATTACHMENT', { nodes: ['node-02'], path })).toEqual(
      staleStageSteps('node-02', [path]).map((s, i) => `${i + 1}. ${s}`),
    );
  });

  it('names every path when a node holds several', () => {
    const steps = staleStageSteps('node-02', [gm('a'), gm('b')]);
    expect(steps[3]).toBe(
      `Only if it persists, unmount those globalmount paths (${gm('a')}, ${gm('b')}) and remove the empty directories (lazy unmount only as a last resort).`,
    );
  });

  it('the sentence of a stage whose attachments could not be read says "can", not "does"', () => {
    const text = staleStageText({ node: 'node-02', volume: 'pvc-db', path: gm('3f81'), holds: 'attached' });
    expect(text).toMatch(/it can keep the volume attached to node-02 \(VolumeAttachments could not be read\)/);
  });
});
