import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import type { Pod } from '../../src/domain/objects.js';

function pod(name: string, node: string, claim: string, ownerUid?: string): Pod {
  return {
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      ownerReferences: ownerUid ? [{ uid: ownerUid, controller: true }] : null,
    },
    spec: { nodeName: node, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }, { name: 'tmp' }] },
  };
}

describe('ClusterIndex', () => {
  it('answers the same, in the same order, whether its node and owner indexes are built up front or on first use', () => {
    const changes = (idx: ClusterIndex): ClusterIndex => {
      idx.upsert('pods', pod('a', 'n1', 'c1', 'rs1'));
      idx.upsert('pods', pod('b', 'n1', 'c1', 'rs1'));
      idx.upsert('pods', pod('c', 'n2', 'c2', 'rs1'));
      idx.upsert('pods', pod('a', 'n2', 'c1', 'rs1')); // moved: last on n2 now
      idx.remove('pods', pod('b', 'n1', 'c1'));
      return idx;
    };
    const answers = (idx: ClusterIndex) =>
      [idx.podsOnNode('n1'), idx.podsOnNode('n2'), idx.podsOwnedBy('rs1')].map((ps) => ps.map((p) => p.metadata?.name));
    const eager = changes(new ClusterIndex().indexEverything());
    expect(answers(eager)).toEqual(answers(changes(new ClusterIndex())));
    expect(answers(eager)).toEqual([[], ['c', 'a'], ['c', 'a']]);
  });

  it('indexes pods by claim, node and owner from a snapshot', () => {
    const s = emptySnapshot();
    s.pods.push(pod('a', 'n1', 'c1', 'rs1'), pod('b', 'n2', 'c1'), pod('c', 'n1', 'c2'));
    const idx = ClusterIndex.fromSnapshot(s);
    expect(
      idx
        .podsUsingClaim('ns', 'c1')
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(
      idx
        .podsOnNode('n1')
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(idx.podsOwnedBy('rs1').map((p) => p.metadata?.name)).toEqual(['a']);
    expect(idx.keyOfUid('uid-b')).toBe('ns/b');
    // a claim of the same name in another namespace is a different claim
    expect(idx.podsUsingClaim('other', 'c1')).toEqual([]);
  });

  it('moves index entries when an object changes and drops them on removal', () => {
    const idx = new ClusterIndex();
    idx.upsert('pods', pod('a', 'n1', 'c1'));
    idx.upsert('pods', pod('a', 'n2', 'c2'));
    expect(idx.podsOnNode('n1')).toEqual([]);
    expect(idx.podsUsingClaim('ns', 'c1')).toEqual([]);
    expect(idx.podsOnNode('n2')).toHaveLength(1);
    expect(idx.remove('pods', pod('a', 'n2', 'c2'))).toBe(true);
    expect(idx.podsOnNode('n2')).toEqual([]);
    expect(idx.count('pods')).toBe(0);
    expect(idx.keyOfUid('uid-a')).toBeUndefined();
  });

  it("finds a Deployment's pods across its ReplicaSets by their name and pod-template-hash, kept current", () => {
    const depPod = (name: string, rs: string, hash?: string): Pod => ({
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'ns',
        ownerReferences: [{ kind: 'ReplicaSet', name: rs, uid: `uid-${rs}`, controller: true }],
        ...(hash ? { labels: { 'pod-template-hash': hash } } : {}),
      },
    });
    const names = (idx: ClusterIndex) => idx.podsOfDeployment('ns', 'web').map((p) => p.metadata?.name);
    const idx = new ClusterIndex().indexEverything();
    idx.upsert('pods', depPod('web-aaa-1', 'web-aaa', 'aaa'));
    idx.upsert('pods', depPod('web-bbb-1', 'web-bbb', 'bbb'));
    idx.upsert('pods', depPod('web-api-ccc-1', 'web-api-ccc', 'ccc')); // Deployment web-api's, not web's
    idx.upsert('pods', depPod('web-x-1', 'web-x')); // a bare ReplicaSet: no hash, no Deployment
    expect(names(idx)).toEqual(['web-aaa-1', 'web-bbb-1']);
    expect(idx.podsOfDeployment('ns', 'web-api').map((p) => p.metadata?.name)).toEqual(['web-api-ccc-1']);
    idx.remove('pods', depPod('web-aaa-1', 'web-aaa', 'aaa'));
    expect(names(idx)).toEqual(['web-bbb-1']);
  });

  it('indexes events by involved object and tolerates missing fields', () => {
    const idx = new ClusterIndex();
    idx.upsert('events', {
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'ns' },
      involvedObject: { kind: 'Pod', namespace: 'ns', name: 'a' },
      reason: 'FailedMount',
    });
    idx.upsert('events', { kind: 'Event', metadata: { name: 'e2', namespace: 'ns' } });
    idx.upsert('pods', { kind: 'Pod', metadata: { name: 'bare' } });
    expect(idx.eventsFor('Pod', 'ns', 'a').map((e) => e.reason)).toEqual(['FailedMount']);
    expect(idx.podsOnNode('')).toEqual([]);
  });

  it('keeps one entry per object whatever the number of pods per claim, and returns the current object', () => {
    const idx = new ClusterIndex();
    // 40 pods on one claim (past the array-to-Set switch), each mounting the claim through two volumes.
    for (let i = 0; i < 40; i++) {
      const p = pod(`p${i}`, 'n1', 'big');
      p.spec!.volumes!.push({ name: 'again', persistentVolumeClaim: { claimName: 'big' } });
      idx.upsert('pods', p);
    }
    expect(idx.podsUsingClaim('ns', 'big')).toHaveLength(40);
    // Replacing an object returns the new one, moved last (as a relisted object is); no duplicate.
    idx.upsert('pods', pod('p3', 'n9', 'big'));
    const names = idx.podsUsingClaim('ns', 'big').map((p) => p.metadata?.name);
    expect(names).toHaveLength(40);
    expect(names.at(-1)).toBe('p3');
    expect(idx.podsUsingClaim('ns', 'big').at(-1)?.spec?.nodeName).toBe('n9');
    for (let i = 0; i < 40; i++) idx.remove('pods', pod(`p${i}`, 'n1', 'big'));
    expect(idx.podsUsingClaim('ns', 'big')).toEqual([]);
    expect(idx.podsOnNode('n1')).toEqual([]);
    // A query result is a copy: changing it changes nothing in the index.
    idx.upsert('pods', pod('q', 'n1', 'c'));
    idx.podsUsingClaim('ns', 'c').pop();
    expect(idx.podsUsingClaim('ns', 'c')).toHaveLength(1);
  });

  it('counts an object listed twice in a snapshot once (the later copy wins)', () => {
    const s = emptySnapshot();
    s.pods.push(pod('a', 'n1', 'c1'), pod('a', 'n2', 'c1'));
    const idx = ClusterIndex.fromSnapshot(s);
    expect(idx.podsUsingClaim('ns', 'c1').map((p) => p.spec?.nodeName)).toEqual(['n2']);
    expect(idx.podsOnNode('n1')).toEqual([]);
  });
});
