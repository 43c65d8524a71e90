// `rwx diff daemonset/NAME` end to end on the rollout incident's snapshot.
import { describe, expect, it } from 'vitest';
import type { TemplateChange } from '../../src/domain/incident.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';
import { rwx, writeSnapshot } from '../correlate/cli-run.js';

describe('rwx diff', () => {
  const rolloutFile = writeSnapshot(rolloutObjects());

  it('compares the newest two revisions by default', async () => {
    const r = await rwx('diff', 'daemonset/ebs-csi-node', '-n', 'kube-system', '--snapshot', rolloutFile);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'daemonset kube-system/ebs-csi-node revision 1 -> 2: 1 change',
        '  CATEGORY  CONTAINER   CHANGE',
        '  storage   ebs-plugin  kubelet-dir: mountPropagation Bidirectional -> none',
        '',
      ].join('\n'),
    );
  });

  it('--from/--to in reverse, as json, without -n', async () => {
    const r = await rwx('diff', 'ds/ebs-csi-node', '--from', '2', '--to', '1', '-o', 'json', '--snapshot', rolloutFile);
    const out = JSON.parse(r.stdout) as { from: number; to: number; changes: TemplateChange[] };
    expect([r.code, out.from, out.to, out.changes.map((c) => c.text)]).toEqual([
      0,
      2,
      1,
      ['kubelet-dir: mountPropagation none -> Bidirectional'],
    ]);
  });

  it.each([
    [['daemonset/nope'], /daemonset nope not found/],
    [['daemonset/ebs-csi-node', '--from', '7'], /revision 7 of daemonset ebs-csi-node not found \(have 2, 1\)/],
    [['deployment/x'], /expected exactly one daemonset\/NAME/],
    [['daemonset/ebs-csi-node', '--to', 'latest'], /--to: latest is not a whole number/],
  ])('%j -> exit 1', async (args, msg) => {
    const r = await rwx('diff', ...args, '--snapshot', rolloutFile);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(msg);
  });
});
