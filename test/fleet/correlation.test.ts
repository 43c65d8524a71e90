// §2 fleet correlation: the same bad ebs-csi-node revision in two clusters yields two threads, the second linked
// to the first; a third cluster that starts rolling out the same change (revision 2 appears, no plugin pod runs it
// yet) gets a warning before any of its pods is stuck, worded for a DaemonSet (no `rollout pause`).
import { readFileSync } from 'node:fs';
import { parseScenario, type Scenario } from '@rwx/kube-sim';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { scenarioPath } from '../support/sim.js';
import { CHANNEL, startFleet, type Fleet } from './harness.js';

type Obj = {
  kind?: string;
  revision?: number;
  status?: { phase?: string };
  metadata?: { labels?: Record<string, string> };
};

/**
 * propagation-loss before its rollout: every plugin pod on revision 1, nothing stuck, no CronJob; revision 2 (the
 * same template change) appears at +1m, and no node plugin pod is replaced yet.
 */
function rolloutStart(): Scenario {
  const doc = parseYaml(readFileSync(scenarioPath('propagation-loss'), 'utf8'), { maxAliasCount: -1, merge: true }) as {
    name: string;
    description: string;
    objects: Obj[];
    timeline: unknown[];
  };
  const rev2 = doc.objects.find((o) => o.kind === 'ControllerRevision' && o.revision === 2);
  const keep = (o: Obj): boolean =>
    o !== rev2 &&
    !['Event', 'Job', 'CronJob'].includes(o.kind ?? '') &&
    !(o.kind === 'Pod' && o.status?.phase === 'Pending');
  doc.objects = doc.objects.filter(keep);
  for (const o of doc.objects) {
    const labels = o.metadata?.labels;
    if (o.kind === 'Pod' && labels?.['controller-revision-hash'] === '${rev2}')
      labels['controller-revision-hash'] = '${rev1}';
  }
  doc.name = 'rollout-start';
  doc.description = 'ebs-csi-node revision 2 (propagation lost) is created; no node runs it yet';
  doc.timeline = [{ at: '1m', note: 'the ebs-csi-node upgrade starts', add: [rev2] }];
  return parseScenario(doc, 'rollout-start (from propagation-loss)');
}

let fleet: Fleet;
/** The root of `cluster`'s incident (its metadata key is qualified by the cluster). */
const rootOf = (cluster: string) =>
  fleet.slack.roots(CHANNEL).find((m) => String(m.metadata?.event_payload.key ?? '').startsWith(`${cluster}:`));

beforeAll(async () => {
  fleet = await startFleet([
    { name: 'staging-1', scenario: scenarioPath('propagation-loss') },
    { name: 'prod-eu-1', scenario: scenarioPath('propagation-loss') },
    { name: 'prod-us-1', scenario: rolloutStart() },
  ]);
  await fleet.advance(1_000);
  await until(() => Boolean(rootOf('staging-1') && rootOf('prod-eu-1')), 'both rollout threads', 30_000);
}, 60_000);

afterAll(async () => {
  await fleet?.close();
});

describe('the same bad revision in two clusters', () => {
  it('two threads; the second says the same change broke the first, with a link to its thread', async () => {
    const first = rootOf('staging-1')!;
    const second = rootOf('prod-eu-1')!;
    await fleet.advance(0); // one more evaluation: both roots are recorded now
    const link = () => fleet.slack.replies(second.ts).find((m) => m.text.startsWith(':link:'));
    await until(() => link() !== undefined, 'the link in the second thread', 15_000);
    const text = link()!.text;
    expect(text).toContain('The same change broke *staging-1*');
    expect(text).toContain(`https://slack.com/archives/${CHANNEL}/p${first.ts.replace('.', '')}`);
    expect(text).toContain('kubelet-dir: mountPropagation Bidirectional -&gt; none');
    expect(text).toContain('ebs-plugin image aws-ebs-csi-driver:v1.30.0 -&gt; aws-ebs-csi-driver:v1.31.0');
    expect(text).toContain('It is still open there.');
    // The first one links nobody, and the link is posted once however many evaluations run.
    await fleet.advance(0);
    expect(fleet.slack.replies(first.ts).filter((m) => m.text.startsWith(':link:'))).toEqual([]);
    expect(fleet.slack.replies(second.ts).filter((m) => m.text.startsWith(':link:'))).toHaveLength(1);
  });
});

describe('a third cluster starting to roll out the same change', () => {
  it('gets a warning before any pod is stuck, with the DaemonSet way to stop it', async () => {
    const warning = () => fleet.slack.roots(CHANNEL).find((m) => m.text.includes('*prod-us-1* started rolling out'));
    await fleet.advance(30_000);
    expect(warning()).toBeUndefined(); // revision 2 does not exist there yet
    await fleet.advance(31_000); // +1m01s: revision 2 is created
    await until(() => warning() !== undefined, 'the rollout warning', 15_000);
    const text = warning()!.text;
    expect(text).toContain('the `kube-system/ebs-csi-node` change (revision 2) that broke *staging-1*');
    expect(text).toContain('No mount has failed here yet');
    expect(text).toContain('`kubectl rollout pause` does not work for DaemonSets');
    expect(text).toContain('`kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1`');
    expect(text).toContain('"updateStrategy":{"type":"OnDelete"}');
    expect(rootOf('prod-us-1')).toBeUndefined(); // no incident there: nothing is stuck
    await fleet.advance(0);
    expect(fleet.slack.roots(CHANNEL).filter((m) => m.text.includes('*prod-us-1* started rolling out'))).toHaveLength(
      1,
    );
  });
});
