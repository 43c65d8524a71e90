import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/domain/objects.js';
import { slimPod } from '../../src/watch/slim.js';

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

describe('slimPod', () => {
  it('drops annotations and container args/image/securityContext of ordinary pods, keeping what detectors read', () => {
    const p = slimPod(pod('ReplicaSet'));
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
    const p = slimPod(running);
    expect(p.spec?.containers).toBeUndefined();
    expect(p.spec?.volumes).toHaveLength(1);
    expect(p.status).toEqual({
      phase: 'Running',
      startTime: '2026-01-01T00:00:00Z',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'app', state: { running: { startedAt: '2026-01-01T00:00:05Z' } } }],
    });
  });

  it('leaves node plugin pods (DaemonSet-owned) whole', () => {
    const p = slimPod(pod('DaemonSet'));
    expect(p.metadata?.annotations).toEqual({ a: 'b' });
    expect(p.spec?.containers?.[0]?.image).toBe('img');
  });

  it('keeps the pod IP and container ports of DaemonSet pods only (the node agent is fetched from them)', () => {
    const agent = slimPod(pod('DaemonSet'));
    expect(agent.status?.podIP).toBe('10.0.0.9');
    expect(agent.spec?.containers?.[0]?.ports).toEqual([{ name: 'agent', containerPort: 9743 }]);
    const ordinary = slimPod(pod('ReplicaSet'));
    expect(ordinary.status && 'podIP' in ordinary.status).toBe(false);
    expect(ordinary.spec?.containers?.[0]?.ports).toBeUndefined();
    const running = slimPod({ ...pod('ReplicaSet'), status: { phase: 'Running', podIP: '10.0.0.9' } });
    expect(running.status && 'podIP' in running.status).toBe(false);
  });
});
