// The watch path's projection of pods (src/watch/slim.ts): one pass over the API object, the shape chosen first.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/domain/objects.js';
import { project } from '../../src/kube/project.js';
import { projectPod } from '../../src/watch/slim.js';

const pod = (ownerKind: string): Pod => ({
  metadata: {
    name: 'p',
    namespace: 'ns',
    annotations: { a: 'b' },
    labels: { 'controller-revision-hash': 'h' },
    ownerReferences: [{ kind: ownerKind, name: 'o', uid: 'u', controller: true }],
  },
  spec: {
    nodeName: 'n1',
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'c' } }],
    containers: [
      {
        name: 'app',
        image: 'img',
        args: ['--x'],
        securityContext: { privileged: true },
        volumeMounts: [{ name: 'data', mountPath: '/d' }],
        ports: [{ name: 'agent', containerPort: 9743 }],
      },
    ],
  },
  status: { phase: 'Pending', podIP: '10.0.0.9' },
});

describe('projectPod', () => {
  it('drops annotations and container args/image/securityContext of ordinary pods, keeping what detectors read', () => {
    const p = projectPod(pod('ReplicaSet'));
    expect(p.metadata?.annotations).toBeUndefined();
    expect(p.metadata?.labels).toEqual({ 'controller-revision-hash': 'h' });
    expect(p.spec?.containers).toEqual([{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/d' }] }]);
    expect(p.spec?.volumes).toHaveLength(1);
    expect(p.status?.phase).toBe('Pending');
  });

  it('keeps of a Running pod only what correlation and drain advice read', () => {
    const running = pod('ReplicaSet');
    running.status = {
      phase: 'Running',
      startTime: '2026-01-01T00:00:00Z',
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'Initialized', status: 'True' },
      ],
      containerStatuses: [
        { name: 'app', ready: true, image: 'img', state: { running: { startedAt: '2026-01-01T00:00:05Z' } } },
      ],
    };
    const p = projectPod(running);
    expect(p.spec?.containers).toBeUndefined();
    expect(p.spec?.volumes).toHaveLength(1);
    expect(p.status).toEqual({
      phase: 'Running',
      startTime: '2026-01-01T00:00:00Z',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'app', state: { running: { startedAt: '2026-01-01T00:00:05Z' } } }],
    });
  });

  it('keeps of a Running pod an empty condition and container list when it has none, and null start times', () => {
    const running = pod('ReplicaSet');
    running.status = {
      phase: 'Running',
      containerStatuses: [
        { name: 'app', state: { running: {} } },
        // a container not running in a Running pod (restarting): its name only
        { name: 'side', state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    };
    expect(projectPod(running).status).toEqual({
      phase: 'Running',
      conditions: [],
      containerStatuses: [{ name: 'app', state: { running: { startedAt: null } } }, { name: 'side' }],
    });
    expect(projectPod({ ...running, status: { phase: 'Running' } }).status).toEqual({
      phase: 'Running',
      conditions: [],
      containerStatuses: [],
    });
  });

  it('keeps a Running pod being deleted as a detector subject: containers and every condition', () => {
    const deleting = pod('ReplicaSet');
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' };
    deleting.status = { phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }] };
    const p = projectPod(deleting);
    expect(p.spec?.containers).toEqual([{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/d' }] }]);
    expect(p.status?.conditions).toEqual([{ type: 'Initialized', status: 'True' }]);
    expect(p.metadata?.annotations).toBeUndefined();
  });

  it('never returns or changes its input, and copes with nulls and wrongly typed fields', () => {
    const raw = pod('ReplicaSet');
    const before = structuredClone(raw);
    const p = projectPod(raw);
    expect(p).not.toBe(raw);
    expect(p.spec?.volumes?.[0]).not.toBe(raw.spec?.volumes?.[0]);
    expect(raw).toEqual(before);
    expect(projectPod({ metadata: null, spec: null, status: null } as unknown as Pod)).toEqual({
      metadata: null,
      spec: null,
      status: null,
    });
    const odd = { metadata: { ownerReferences: 'x' }, spec: { containers: [null] }, status: 'x' };
    expect(projectPod(odd as unknown as Pod)).toEqual({
      metadata: { ownerReferences: 'x' },
      spec: { containers: [null] },
      status: 'x',
    });
    expect(projectPod(null as unknown as Pod)).toEqual({});
  });

  it('leaves node plugin pods (DaemonSet-owned) whole', () => {
    const p = projectPod(pod('DaemonSet'));
    expect(p).toEqual(project('pods', pod('DaemonSet')));
    expect(p.metadata?.annotations).toEqual({ a: 'b' });
    expect(p.spec?.containers?.[0]?.image).toBe('img');
  });

  it('keeps the pod IP and container ports of DaemonSet pods only (the node agent is fetched from them)', () => {
    const agent = projectPod(pod('DaemonSet'));
    expect(agent.status?.podIP).toBe('10.0.0.9');
    expect(agent.spec?.containers?.[0]?.ports).toEqual([{ name: 'agent', containerPort: 9743 }]);
    const ordinary = projectPod(pod('ReplicaSet'));
    expect(ordinary.status && 'podIP' in ordinary.status).toBe(false);
    expect(ordinary.spec?.containers?.[0]?.ports).toBeUndefined();
    const running = projectPod({ ...pod('ReplicaSet'), status: { phase: 'Running', podIP: '10.0.0.9' } });
    expect(running.status && 'podIP' in running.status).toBe(false);
  });

  it('never throws on owner references that are not a list of objects', () => {
    for (const ownerReferences of [[null], [null, { kind: 'DaemonSet', controller: true }], {}, 'x', [7]]) {
      const raw = { metadata: { name: 'p', namespace: 'ns', ownerReferences }, status: { phase: 'Running' } };
      expect(() => projectPod(raw as never)).not.toThrow();
    }
    const ds = { metadata: { name: 'p', ownerReferences: [null, { kind: 'DaemonSet', controller: true }] } };
    // The DaemonSet's pod is still seen as a node plugin pod (projected whole: its annotations stay).
    expect(
      projectPod({ ...ds, metadata: { ...ds.metadata, annotations: { a: 'b' } } } as never).metadata?.annotations,
    ).toEqual({ a: 'b' });
  });
});
