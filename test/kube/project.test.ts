import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pick, project, projectWith, rfc3339, type Shape } from '../../src/kube/project.js';

describe('project', () => {
  it("keeps a PV's built-in volume source as a marker, so triage can tell the kind of storage", () => {
    const raw = {
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1' },
      spec: { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.x', lun: 0, chapAuthSession: true } },
    };
    const pv = project('pvs', raw);
    expect(pv.spec).toHaveProperty('iscsi');
    expect(JSON.stringify(pv)).not.toContain('targetPortal');
  });

  it('keeps only the whitelisted pod fields, drops managedFields and last-applied', () => {
    const raw = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-0',
        namespace: 'shop',
        uid: 'u1',
        generateName: 'web-',
        creationTimestamp: '2026-11-30T01:00:00Z',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'yes' },
        managedFields: [{ manager: 'kubectl' }],
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'web-1',
            uid: 'rs',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        nodeName: 'node-01',
        dnsPolicy: 'ClusterFirst',
        tolerations: [{ key: 'x' }],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'cm', configMap: { name: 'c' } },
        ],
        containers: [
          {
            name: 'web',
            image: 'nginx',
            env: [{ name: 'A', value: 'b' }],
            volumeMounts: [{ name: 'data', mountPath: '/d', mountPropagation: 'Bidirectional' }],
          },
        ],
      },
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        containerStatuses: [{ name: 'web', imageID: 'sha', state: { running: { startedAt: '2026-11-30T01:00:01Z' } } }],
      },
    };
    expect(project('pods', raw)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-0',
        namespace: 'shop',
        uid: 'u1',
        creationTimestamp: '2026-11-30T01:00:00Z',
        annotations: { keep: 'yes' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs', controller: true }],
      },
      spec: {
        nodeName: 'node-01',
        // the volume's source is kept (a configMap is not storage: src/detect/volume-source.ts), its items are not
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'cm', configMap: { name: 'c' } },
        ],
        containers: [
          {
            name: 'web',
            image: 'nginx',
            volumeMounts: [{ name: 'data', mountPath: '/d', mountPropagation: 'Bidirectional' }],
          },
        ],
      },
      status: {
        phase: 'Running',
        // Kept for the node agent's pods (the bot fetches their report from it); the watch path (projectPod) drops it elsewhere.
        podIP: '10.0.0.1',
        containerStatuses: [{ name: 'web', state: { running: { startedAt: '2026-11-30T01:00:01Z' } } }],
      },
    });
    // the input is not modified
    expect(raw.metadata.managedFields).toHaveLength(1);
    expect(raw.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toBe('{}');
  });

  it('keeps nulls and copes with missing or wrongly typed fields', () => {
    expect(project('pods', { metadata: null, spec: { volumes: null, nodeName: null }, status: null })).toEqual({
      metadata: null,
      spec: { volumes: null, nodeName: null },
      status: null,
    });
    expect(project('pvcs', { spec: 'nonsense' })).toEqual({ spec: 'nonsense' });
    expect(project('events', null)).toEqual({});
    expect(project('volumeAttachments', 42)).toEqual({});
    expect(project('pods', { metadata: { annotations: null } })).toEqual({ metadata: { annotations: null } });
  });

  it('projects by a compiled shape as walking it would: arrays per element, odd values through, undefined out', () => {
    const shape: Shape = { a: { b: true, c: { d: true } }, e: true };
    expect(pick({ a: [{ b: 1, x: 2 }, null, 'y', { c: [{ d: 3, z: 4 }] }], e: undefined, f: 5 }, shape)).toEqual({
      a: [{ b: 1 }, null, 'y', { c: [{ d: 3 }] }],
    });
    expect(Object.keys(pick({ a: { b: undefined, c: 1 } }, shape) as object)).toEqual(['a']);
    expect(pick({ a: { b: undefined, c: 1 } }, shape)).toStrictEqual({ a: { c: 1 } });
    // The same shape object twice: the compiled function is reused, not rebuilt (and gives the same answer).
    expect(pick({ e: [1, { f: 2 }] }, shape)).toStrictEqual({ e: [1, { f: 2 }] });
  });

  it('refuses a shape field that is not a plain name (shapes are code, and a name is written into one)', () => {
    expect(() => projectWith({ 'a"]=1;//': true }, {})).toThrow(/not a plain name/);
  });

  it('projects the same where code generation is disallowed (the shape is walked instead)', () => {
    // The built module (npm test builds first), in a process run with the hardening flag.
    const built = pathToFileURL(fileURLToPath(new URL('../../dist/kube/project.js', import.meta.url))).href;
    const pod = {
      metadata: { name: 'p', namespace: 'ns', labels: { a: 'b' }, managedFields: [{}] },
      spec: { nodeName: 'n1', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }, null] },
      status: { phase: 'Pending', conditions: 'odd' },
    };
    const script = `import { project } from ${JSON.stringify(built)};
      let gen = 'allowed';
      try { new Function(''); } catch (e) { gen = e.name; }
      console.log(JSON.stringify({ gen, out: project('pods', JSON.parse(process.argv[1])) }));`;
    const flag = '--disallow-code-generation-from-strings';
    const r = spawnSync(process.execPath, [flag, '--input-type=module', '-e', script, JSON.stringify(pod)], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ gen: 'EvalError', out: project('pods', pod) });
  });

  it('keeps a "__proto__" key of kept-whole data as data, never as the copy\'s prototype', () => {
    const raw = JSON.parse('{"metadata":{"name":"x","labels":{"__proto__":{"polluted":"yes"}}}}');
    const out = project('daemonSets', raw) as { metadata: { labels: Record<string, unknown> } };
    expect(Object.getPrototypeOf(out.metadata.labels)).toBe(Object.prototype);
    expect((out.metadata.labels as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(out.metadata.labels)).toEqual(['__proto__']);
  });

  it('keeps everything but managedFields and last-applied for other kinds', () => {
    const ds = {
      kind: 'DaemonSet',
      metadata: {
        name: 'csi-node',
        managedFields: [{}],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
      spec: { template: { spec: { hostNetwork: true } } },
    };
    expect(project('daemonSets', ds)).toEqual({
      kind: 'DaemonSet',
      metadata: { name: 'csi-node', annotations: {} },
      spec: { template: { spec: { hostNetwork: true } } },
    });
  });

  it('turns client-node Date objects into RFC 3339 strings', () => {
    const typed = {
      metadata: {
        name: 'p',
        creationTimestamp: new Date('2026-11-30T01:02:03Z'),
        deletionTimestamp: new Date('2026-11-30T01:02:03.250Z'),
      },
      status: { startTime: new Date('2026-11-30T01:00:00Z'), phase: undefined },
    };
    expect(project('pods', typed)).toEqual({
      metadata: { name: 'p', creationTimestamp: '2026-11-30T01:02:03Z', deletionTimestamp: '2026-11-30T01:02:03.250Z' },
      status: { startTime: '2026-11-30T01:00:00Z' },
    });
    expect(
      project('leases', { metadata: { name: 'l' }, spec: { renewTime: new Date('2026-11-30T01:00:00.123Z') } }),
    ).toEqual({ metadata: { name: 'l' }, spec: { renewTime: '2026-11-30T01:00:00.123Z' } });
    expect(rfc3339(new Date('invalid'))).toBe('');
  });
});
