// `rwx drain-check` end to end on the rollout incident's snapshot: exit codes 3 (BLOCK), 0 (OK), 1 (error).
import { describe, expect, it } from 'vitest';
import type { DrainAdvice } from '../../src/domain/incident.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';
import { rwx, writeSnapshot } from '../correlate/cli-run.js';

const NOW = '2026-11-30T09:15:00Z';

describe('rwx drain-check', () => {
  const rolloutFile = writeSnapshot(rolloutObjects());

  it('node-19 is blocked (exit 3)', async () => {
    const r = await rwx('drain-check', 'node-19', '--snapshot', rolloutFile, '--now', NOW);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(
      /^BLOCK: node-19\nDo not drain: the stuck mounts on node-19 follow kube-system\/ebs-csi-node revision 2/,
    );
    expect(r.stdout).toContain('Instead:\n  1. Stop the drain;');
  });

  it('a revision-1 node with no stuck pods is OK (exit 0), as json', async () => {
    const r = await rwx('drain-check', 'node-02', '--snapshot', rolloutFile, '--now', NOW, '-o', 'json');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as DrainAdvice).decision).toBe('OK');
  });

  it.each([
    // unknown node
    [['node-99'], /node "node-99" not found/],
    // not a Kubernetes name
    [['Node_19'], /"Node_19" is not a valid node name/],
    // no node
    [[], /expected exactly one NODE/],
  ])('%j -> exit 1', async (args, msg) => {
    const r = await rwx('drain-check', ...args, '--snapshot', rolloutFile, '--now', NOW);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(msg);
  });
});
