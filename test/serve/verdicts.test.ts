// What `rwx serve` makes of the other scenarios, over the simulator through the watch path: a CNI failure is
// not a storage incident; a node fault is FOLLOWS_NODE.
import { describe, expect, it } from 'vitest';
import { incidentsOf } from './harness.js';

describe('serve verdicts over the simulator', () => {
  it('the CNI scenario yields no storage incident: its stuck pods are grouped as NOT_STORAGE', async () => {
    const incidents = await incidentsOf('scenarios/cni-sandbox.yaml');
    expect(incidents.length).toBeGreaterThan(0); // the stuck pods are seen, and labelled as not storage
    expect(incidents.filter((i) => i.verdict !== 'NOT_STORAGE')).toEqual([]);
    for (const i of incidents) for (const p of i.pods) expect(p.cause).toBe('network');
  });

  it('the node-fault scenario yields FOLLOWS_NODE on node-07', async () => {
    const incidents = await incidentsOf('scenarios/node-fault.yaml');
    const storage = incidents.filter((i) => i.verdict !== 'NOT_STORAGE');
    expect(storage.map((i) => i.verdict)).toEqual(['FOLLOWS_NODE']);
    expect(storage[0]?.node).toBe('node-07');
  });

  it('the rollout scenario yields one FOLLOWS_ROLLOUT incident with its four symptoms', async () => {
    const incidents = await incidentsOf('scenarios/propagation-loss.yaml');
    expect(incidents.map((i) => i.key)).toEqual(['rollout/kube-system/ebs-csi-node@2']);
    const names = incidents[0]!.pods.map((p) => p.pod.name).sort();
    expect(names).toContain('postgres-2');
    expect(incidents[0]!.cronJobs.map((c) => c.cronJob.name)).toEqual(['nightly-backup']);
  });
});
