// deploy/gate/rbac.yaml grants every request `rwx gate` makes (taken from the simulator's audit log of real runs,
// including --cleanup and a failing node) and nothing beyond the documented set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Simulator } from '@rwx/kube-sim';
import { gate, startGateSim } from './sim.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface Doc {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace: string }[];
}

const docs = parseAllDocuments(readFileSync(join(import.meta.dirname, '../../deploy/gate/rbac.yaml'), 'utf8')).map(
  (d) => d.toJS() as Doc,
);
const role = docs.find((d) => d.kind === 'Role');
const clusterRole = docs.find((d) => d.kind === 'ClusterRole');

/** Whether the gate's ServiceAccount may do `verb` on group/resource in `namespace` (undefined: cluster scope). */
function allowed(verb: string, group: string, resource: string, namespace: string | undefined): boolean {
  const match = (rules: Rule[] = []) =>
    rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
  // A ClusterRole bound by a ClusterRoleBinding applies everywhere; the Role only in its namespace.
  return match(clusterRole?.rules) || (namespace === role?.metadata.namespace && match(role?.rules));
}

describe('deploy/gate RBAC', () => {
  let sim: Simulator;
  const requests = new Set<string>();
  beforeAll(async () => {
    const started = await startGateSim();
    sim = started.sim;
    await gate(sim, started.clock, [
      '--cleanup',
      '--storage-class',
      'ebs-gp3',
      '--nodes',
      'gate-node-1,gate-node-3',
      '--timeout',
      '30s',
    ]);
    for (const a of sim.audit) requests.add(`${a.verb} ${a.group ?? ''}/${a.resource} ${a.namespace ?? '-'}`);
  });
  afterAll(async () => sim.stop());

  it('allows every request the gate made', () => {
    expect(requests.size).toBeGreaterThanOrEqual(8);
    const denied = [...requests].filter((r) => {
      const [verb, gr, ns] = r.split(' ') as [string, string, string];
      const [group, resource] = gr.split('/') as [string, string];
      return !allowed(verb, group, resource, ns === '-' ? undefined : ns);
    });
    expect(denied).toEqual([]);
  });

  it('grants writes only on pods and claims, only in the rwx-gate namespace', () => {
    const writes = [...(role?.rules ?? []), ...(clusterRole?.rules ?? [])].filter((r) =>
      r.verbs.some((v) => !['get', 'list', 'watch'].includes(v)),
    );
    expect(writes).toEqual([
      {
        apiGroups: [''],
        resources: ['pods', 'persistentvolumeclaims'],
        verbs: ['create', 'get', 'list', 'watch', 'delete'],
      },
    ]);
    expect(clusterRole?.rules?.flatMap((r) => r.verbs)).toEqual(['get', 'list', 'get']);
    expect(role?.metadata.namespace).toBe('rwx-gate');
  });

  it('binds both roles to the rwx-gate ServiceAccount', () => {
    const bindings = docs.filter((d) => d.kind.endsWith('Binding'));
    expect(
      bindings.map(
        (b) =>
          `${b.kind} -> ${b.roleRef?.kind}/${b.roleRef?.name} for ${b.subjects?.map((s) => `${s.namespace}/${s.name}`).join()}`,
      ),
    ).toEqual([
      'RoleBinding -> Role/rwx-gate for rwx-gate/rwx-gate',
      'ClusterRoleBinding -> ClusterRole/rwx-gate for rwx-gate/rwx-gate',
    ]);
  });
});
