// Reading a live cluster through the API simulator over real HTTP: pagination, projection, per-kind 403,
// 401, 5xx, unreachable, access reviews and the namespace filter.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { KIND_KEYS } from '../../src/domain/kinds.js';
import { isRwxError } from '../../src/errors.js';
import { checkAccess, connect, readCluster, type KubeConnection } from '../../src/kube/index.js';
import { parseScenario, startSimulator, type Simulator } from '@rwx/kube-sim';
import { NOW, node, pod } from '../triage/fixtures.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

/** A simulator with `nodes` Nodes and two pods in two namespaces; `deny` rules for access reviews. */
async function start(nodes: number, deny: { resource: string }[] = []): Promise<KubeConnection> {
  const objects: unknown[] = [
    { kind: 'Namespace', metadata: { name: 'shop' } },
    { kind: 'Namespace', metadata: { name: 'other' } },
  ];
  for (let i = 0; i < nodes; i++) objects.push(node(`node-${String(i).padStart(4, '0')}`));
  const p = pod('shop', 'web-0', { node: 'node-0000' });
  (p.metadata as Record<string, unknown>).annotations = {
    'kubectl.kubernetes.io/last-applied-configuration': '{}',
    keep: 'me',
  };
  objects.push(p, pod('other', 'batch-0', { node: 'node-0001' }));
  sim = await startSimulator({
    scenario: parseScenario({ name: 'read-test', objects, permissions: { deny } }),
    clock: new ManualClock(NOW),
  });
  return connect({ kubeconfig: sim.kubeconfigPath, env: {} });
}

describe('readCluster', () => {
  it('lists every kind in pages of 500 and projects what it reads', async () => {
    const conn = await start(1100);
    const snap = await readCluster(conn, { kinds: KIND_KEYS });
    expect(snap.unreadable).toEqual([]);
    expect(snap.nodes).toHaveLength(1100);
    const nodeLists = sim!.audit.filter((a) => a.path === '/api/v1/nodes');
    expect(nodeLists.map((a) => [a.query.limit, a.query.continue ? 'continue' : 'first'])).toEqual([
      ['500', 'first'],
      ['500', 'continue'],
      ['500', 'continue'],
    ]);
    const web = snap.pods.find((p) => p.metadata?.name === 'web-0');
    expect(web?.metadata?.annotations).toEqual({ keep: 'me' });
    expect(web?.metadata).not.toHaveProperty('managedFields');
    expect(web?.spec?.nodeName).toBe('node-0000');
  });

  it('keeps multi-byte text whole when an answer arrives in many chunks', async () => {
    const conn = await start(0);
    // 'é' is two bytes and '水' three: a 200 kB page arrives in several reads, and its chunk boundaries fall
    // inside characters; the decoder must carry them over.
    const text = 'é水'.repeat(40_000);
    const res = await conn.request('POST', '/api/v1/namespaces/shop/configmaps', {
      kind: 'ConfigMap',
      metadata: { name: 'wide', namespace: 'shop' },
      data: { text },
    });
    expect(res.status).toBe(201);
    const back = await conn.request('GET', '/api/v1/namespaces/shop/configmaps/wide');
    expect((back.body as { data?: { text?: string } }).data?.text).toBe(text);
  });

  it('restricts namespaced kinds to the namespace, and marks kinds not asked for', async () => {
    const conn = await start(2);
    const snap = await readCluster(conn, { kinds: ['pods', 'nodes'], namespace: 'shop' });
    expect(snap.pods.map((p) => p.metadata?.name)).toEqual(['web-0']);
    expect(snap.nodes).toHaveLength(2);
    expect(sim!.audit.some((a) => a.path === '/api/v1/namespaces/shop/pods')).toBe(true);
    expect(snap.unreadable.map((u) => u.kind)).toContain('volumeAttachments');
  });

  it('marks a forbidden kind unreadable and reads the rest', async () => {
    const conn = await start(2);
    sim!.faults.forbid('volumeattachments');
    const snap = await readCluster(conn, { kinds: KIND_KEYS });
    expect(snap.unreadable).toEqual([{ kind: 'volumeAttachments', reason: expect.stringMatching(/^forbidden/) }]);
    expect(snap.nodes).toHaveLength(2);
  });

  it.each([
    // an expired token
    {
      name: '401',
      fault: (s: Simulator) => s.faults.unauthorized(),
      code: 'KUBE_UNAUTHORIZED',
      msg: /credentials rejected \(expired\?\)/,
    },
    // a transient server error
    { name: '500', fault: (s: Simulator) => s.faults.failNth(1), code: 'KUBE_API', msg: /answered 500/ },
  ])('fails the whole read on $name with one line', async ({ fault, code, msg }) => {
    const conn = await start(2);
    fault(sim!);
    const err = await readCluster(conn, { kinds: ['pods'] }).catch((e: unknown) => e);
    expect(isRwxError(err)).toBe(true);
    expect((err as { code: string }).code).toBe(code);
    expect((err as Error).message).toMatch(msg);
    expect((err as Error).message).toContain(sim!.url);
    expect((err as Error).message).not.toContain('\n');
  });

  it('says the server is unreachable once it is gone', async () => {
    const conn = await start(1);
    await sim!.stop();
    sim = undefined;
    await expect(readCluster(conn, { kinds: ['pods'] })).rejects.toThrow(
      new RegExp(`cannot reach the API server at ${conn.server} \\(ECONNREFUSED\\)`),
    );
  });
});

describe('checkAccess', () => {
  it('asks SelfSubjectAccessReview per kind', async () => {
    const conn = await start(1, [{ resource: 'leases' }]);
    const r = await checkAccess(conn, [{ kind: 'pods' }, { kind: 'leases' }, { kind: 'events', namespace: 'shop' }]);
    expect(r.map((a) => [a.kind, a.verb, a.allowed])).toEqual([
      ['pods', 'list', true],
      ['leases', 'list', false],
      ['events', 'list', true],
    ]);
    const reviews = sim!.audit.filter((a) => a.path.endsWith('/selfsubjectaccessreviews'));
    expect(reviews).toHaveLength(3);
  });
});
