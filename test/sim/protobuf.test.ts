// Access reviews sent as Kubernetes protobuf (what some kubectl builds do for `auth can-i`) are answered like JSON
// ones; any other protobuf body is refused with 415 instead of being misread.
import { describe, expect, test } from 'vitest';
import { inline, testSim } from '../support/sim.js';
import type { Simulator } from '../../packages/kube-sim/src/index.js';

/** One length-delimited protobuf field (lengths < 128 are all these tests need). */
function field(n: number, value: Buffer | string): Buffer {
  const v = typeof value === 'string' ? Buffer.from(value) : value;
  if (v.length > 127) throw new Error('test encoder: field too long');
  return Buffer.concat([Buffer.from([(n << 3) | 2, v.length]), v]);
}

/** The k8s protobuf envelope around `raw`, typed as `kind`. */
function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = Buffer.concat([field(1, apiVersion), field(2, kind)]);
  return Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, raw)]);
}

function review(attrs: Record<number, string>): Buffer {
  const ra = Buffer.concat(Object.entries(attrs).map(([n, v]) => field(Number(n), v)));
  const spec = field(1, ra);
  return envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', Buffer.concat([field(1, ''), field(2, spec)]));
}

async function post(sim: Simulator, path: string, body: Buffer) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sim.token}`,
      'content-type': 'application/vnd.kubernetes.protobuf',
      accept: 'application/vnd.kubernetes.protobuf,application/json',
    },
    body,
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      spec: { resourceAttributes: unknown };
      status: { allowed: boolean };
      message?: string;
      reason?: string;
    },
  };
}

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

describe('protobuf bodies', () => {
  test('a protobuf SelfSubjectAccessReview is answered in JSON from the same permissions', async () => {
    const { sim } = await testSim(
      inline({ name: 'perm', objects: [], permissions: { deny: [{ resource: 'pods', namespace: 'secret-ns' }] } }),
    );
    // ResourceAttributes: 1 namespace, 2 verb, 3 group, 5 resource.
    const allowed = await post(sim, SSAR, review({ 2: 'list', 5: 'pods' }));
    expect(allowed.status).toBe(201);
    expect(allowed.body.spec.resourceAttributes).toEqual({ verb: 'list', resource: 'pods' });
    expect(allowed.body.status.allowed).toBe(true);
    const denied = await post(sim, SSAR, review({ 1: 'secret-ns', 2: 'list', 5: 'pods' }));
    expect(denied.body.status.allowed).toBe(false);
  });

  test('a broken or foreign protobuf body is a clear 400, a protobuf create elsewhere a 415', async () => {
    const { sim } = await testSim(inline({ name: 'empty', objects: [] }));
    const noMagic = await post(sim, SSAR, Buffer.from('{"kind":"SelfSubjectAccessReview"}'));
    expect(noMagic.status).toBe(400);
    expect(noMagic.body.message).toMatch(/magic/);
    const other = await post(sim, SSAR, envelope('v1', 'Pod', Buffer.alloc(0)));
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/Pod is not supported/);
    const truncated = await post(sim, SSAR, review({ 2: 'list' }).subarray(0, 12));
    expect(truncated.status).toBe(400);
    const create = await post(
      sim,
      '/api/v1/namespaces/default/configmaps',
      envelope('v1', 'ConfigMap', Buffer.alloc(0)),
    );
    expect(create.status).toBe(415);
    expect(create.body.reason).toBe('UnsupportedMediaType');
  });
});
