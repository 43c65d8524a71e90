// The cluster's identity is data on the incident: the evaluation states RWX_CLUSTER_NAME on each incident (and, in
// a fleet, in each key, as the records are scoped), and the renderers put it before the title. Nothing between the
// evaluation and Slack renames an incident.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Incident } from '../../src/domain/incident.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { recordScope } from '../../src/fleet/keys.js';
import { realSync } from '../../src/pipeline/sync.js';
import { incidentTitle } from '../../src/render/slack-fallback.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { NOW, baseCluster, pod } from '../triage/fixtures.js';

const incident = { key: 'node/node-7', title: 'node-7: stuck mounts follow the node' } as Incident;

describe('cluster name in incident titles', () => {
  it.each([
    // configured: every title names the cluster
    ['prod-eu-1', '[prod-eu-1] node-7: stuck mounts follow the node'],
    // not configured: titles unchanged
    [undefined, 'node-7: stuck mounts follow the node'],
    ['', 'node-7: stuck mounts follow the node'],
  ])('%j', (cluster, title) => {
    expect(incidentTitle({ ...incident, ...(cluster === undefined ? {} : { cluster }) })).toBe(title);
  });
});

describe('the evaluation states whose incidents they are', () => {
  const s = baseCluster();
  s.pods.push(pod('shop', 'web-stuck', { node: 'node-02', state: 'creating', startedAgo: 1800 }));
  const index = ClusterIndex.fromSnapshot(s);
  const { findings } = evaluate(index, { now: NOW });
  const sync = (clusterName: string | undefined, fleet: boolean) =>
    realSync({
      stuckAfterMs: 300_000,
      cronJobGraceMs: 600_000,
      driverDaemonSets: {},
      ...(clusterName ? { clusterName } : {}),
      scope: recordScope('rwx', fleet ? clusterName : undefined),
    });

  it.each<[string, string | undefined, boolean, (key: string) => string, string | undefined]>([
    // one cluster, no name: keys and titles as the correlator made them
    ['no name', undefined, false, (k) => k, undefined],
    // a name outside a fleet: said on the incident (the title shows it), keys unchanged
    ['named', 'staging', false, (k) => k, 'staging'],
    // a fleet member: the key names the cluster too, as its records are scoped (fleet/keys.ts)
    ['fleet member', 'prod-eu-1', true, (k) => `prod-eu-1:${k}`, 'prod-eu-1'],
  ])('%s', async (_case, name, fleet, keyOf, cluster) => {
    const plain = await sync(undefined, false).evaluate(index, findings, NOW, new Set());
    const named = await sync(name, fleet).evaluate(index, findings, NOW, new Set());
    expect(plain.length).toBeGreaterThan(0);
    expect(named.map((i) => i.key)).toEqual(plain.map((i) => keyOf(i.key)));
    expect(named.map((i) => i.cluster)).toEqual(plain.map(() => cluster));
    expect(named.map((i) => i.title)).toEqual(plain.map((i) => i.title));
    const header = JSON.stringify(renderIncidentRoot(named[0]!).blocks[0]);
    expect(header.includes(`[${name}] `)).toBe(cluster !== undefined);
  });
});
