// Pure parts of the gate: node selection, probe outcome per exit code, the objects it creates, time format.
import { describe, expect, it } from 'vitest';
import type { Node } from '../../src/domain/objects.js';
import { isRwxError } from '../../src/errors.js';
import { EXIT, PROBE_SCRIPT, newRunId, selectNodes, stepsOf } from '../../src/gate/plan.js';
import { probeClaim, probePod, type ProbeSpec } from '../../src/gate/objects.js';
import { formatTaken } from '../../src/gate/run.js';

const node = (name: string, o: { cordoned?: boolean; ready?: string | null } = {}): Node => ({
  kind: 'Node',
  metadata: { name },
  spec: o.cordoned ? { unschedulable: true } : {},
  status: {
    conditions:
      o.ready === null
        ? []
        : [
            {
              type: 'Ready',
              status: o.ready ?? 'True',
              reason: o.ready === 'False' ? 'KubeletNotReady' : 'KubeletReady',
            },
          ],
  },
});
const NODES = [
  node('b'),
  node('a'),
  node('c', { cordoned: true }),
  node('d', { ready: 'False' }),
  node('e', { ready: null }),
  node('f', { ready: 'Unknown' }),
];

describe('selectNodes', () => {
  const cases: [string, string[] | undefined, string][] = [
    // all schedulable nodes, sorted; unschedulable ones silently left out
    ['all', undefined, 'test=a,b skipped='],
    // named nodes: the unschedulable ones are listed as skipped, with why
    [
      'named',
      ['c', 'a', 'd', 'e', 'f'],
      'test=a skipped=c:cordoned,d:not Ready (KubeletNotReady),e:not Ready (no Ready condition),f:not Ready (KubeletReady)',
    ],
    // duplicates collapse
    ['duplicates', ['a', 'a'], 'test=a skipped='],
    // an empty list means all
    ['empty list', [], 'test=a,b skipped='],
  ];
  for (const [name, wanted, want] of cases) {
    it(name, () => {
      const s = selectNodes(NODES, wanted);
      expect(`test=${s.test.join(',')} skipped=${s.skipped.map((x) => `${x.node}:${x.reason}`).join(',')}`).toBe(want);
    });
  }
  // a typo is an error, never a silently smaller gate
  it('unknown node', () => {
    try {
      selectNodes(NODES, ['a', 'zz']);
    } catch (e) {
      expect(isRwxError(e, 'NOT_FOUND')).toBe(true);
      return;
    }
    expect.unreachable();
  });
});

describe('stepsOf', () => {
  const cases: [number | undefined, string][] = [
    [EXIT.ok, 'yes yes yes'], // all three steps worked
    [EXIT.mountMissing, 'no - -'], // started, but the path is not a mount
    [EXIT.writeFailed, 'yes no -'], // mounted, write failed (read-only, full, permissions)
    [EXIT.readBackMismatch, 'yes yes no'], // wrote, read something else back
    [undefined, 'no - -'], // the container never ran: stuck mounting
    [137, 'yes - -'], // killed for another reason after the mount worked
  ];
  for (const [code, want] of cases)
    it(`exit ${code}`, () => {
      const s = stepsOf(code);
      expect(`${s.mounted} ${s.wrote} ${s.readBack}`).toBe(want);
    });
});

describe('probe objects', () => {
  const spec: ProbeSpec = {
    runId: 'abc123',
    index: 2,
    node: 'node-19',
    namespace: 'rwx-gate',
    storageClass: 'gp3',
    accessMode: 'ReadWriteOnce',
    size: '1Gi',
    image: 'busybox:1.36',
    deadlineSeconds: 360,
  };
  it('pins the pod to the node and never restarts it', () => {
    const p = probePod(spec);
    expect([p.metadata?.name, p.spec?.nodeName, p.spec?.restartPolicy, p.spec?.activeDeadlineSeconds]).toEqual([
      'rwx-gate-abc123-2',
      'node-19',
      'Never',
      360,
    ]);
    expect(p.spec?.volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'rwx-gate-abc123-2' } }]);
  });
  it('makes the claim owned by the pod; selects the node only for WaitForFirstConsumer', () => {
    const c = probeClaim(spec, 'uid-1');
    expect(c.metadata?.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'rwx-gate-abc123-2', uid: 'uid-1' },
    ]);
    expect(c.metadata?.annotations?.['volume.kubernetes.io/selected-node']).toBeUndefined();
    expect(
      probeClaim({ ...spec, selectedNode: true }, 'u').metadata?.annotations?.['volume.kubernetes.io/selected-node'],
    ).toBe('node-19');
  });
  it('has a distinct exit code per step in the script', () => {
    for (const code of [EXIT.mountMissing, EXIT.writeFailed, EXIT.readBackMismatch])
      expect(PROBE_SCRIPT).toContain(`exit ${code};`);
  });
  it('makes run ids of six hex digits', () => {
    let i = 0;
    expect(newRunId(() => [0, 0.99, 0.5, 0.1, 0.2, 0.3][i++] ?? 0)).toBe('0f8134');
  });
});

describe('formatTaken', () => {
  const cases: [number, string][] = [
    [0, '0.0s'],
    [2149, '2.1s'],
    [59_999, '1m0s'],
    [60_000, '1m0s'],
    [300_000, '5m0s'],
    [61_500, '1m2s'],
  ];
  for (const [ms, want] of cases) it(`${ms}ms`, () => expect(formatTaken(ms)).toBe(want));
});
