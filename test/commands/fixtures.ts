// Small builders for reports and incidents used by the command tests.
import type { Incident } from '../../src/domain/incident.js';
import { PHASES, type ClaimReport, type Phase, type TriageReport } from '../../src/triage/types.js';

/** A claim in a phase, with one event, one pod and advice, overridable. */
export function claim(namespace: string, name: string, phase: Phase, over: Partial<ClaimReport> = {}): ClaimReport {
  return {
    namespace,
    name,
    phase,
    needsAttention: phase !== 'OK',
    detail: phase === 'OK' ? '1 pod(s) across 1 node(s)' : `stuck ContainerCreating on node-19`,
    alsoPhases: [],
    storageClass: 'ebs-rwx',
    volume: `pvc-${name}`,
    driver: 'ebs.csi.aws.com',
    evidence: {
      events:
        phase === 'OK'
          ? []
          : [
              {
                object: `Pod/${namespace}/${name}-0`,
                type: 'Warning',
                reason: 'FailedMount',
                message: 'timed out waiting for the condition',
                count: 9,
                ageSeconds: 137,
              },
            ],
      pods: phase === 'OK' ? [] : [{ namespace, name: `${name}-0`, node: 'node-19', phase: 'Pending' }],
      nodes: phase === 'OK' ? [] : [{ name: 'node-19', driverRegistered: true }],
      attachments: [],
      stages: [],
      holds: [],
    },
    advice: phase === 'OK' ? [] : ['Go to the node plugin on the node, not the controller.'],
    ...over,
  };
}

/** A report over the given claims with the summary counted from them. */
export function report(claims: ClaimReport[], over: Partial<TriageReport> = {}): TriageReport {
  const byPhase = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  for (const c of claims) byPhase[c.phase]++;
  return {
    schemaVersion: 1,
    generatedAt: '2026-11-30T09:15:00Z',
    timeBasis: 'clock',
    filters: { namespace: null, driver: null },
    preflight: [{ check: 'csidriver', subject: 'ebs.csi.aws.com', status: 'ok', detail: 'attachRequired=true' }],
    undecided: [],
    claims,
    nodeProof: { status: 'available', nodesAsked: 1, reports: 1, findings: [], unavailable: [] },
    summary: {
      claimsExamined: claims.length,
      claimsNeedingAttention: claims.filter((c) => c.needsAttention).length,
      preflightProblems: 0,
      nodeProofFindings: 0,
      byPhase,
    },
    ...over,
  };
}

/** The rollout incident: ebs-csi-node revision 2, stuck mounts on node-19 and node-27. */
export function rolloutIncident(over: Partial<Incident> = {}): Incident {
  return {
    key: 'rollout/kube-system/ebs-csi-node@2',
    verdict: 'FOLLOWS_ROLLOUT',
    title: 'ebs-csi-node revision 2 (ebs.csi.aws.com)',
    summary: 'stuck mounts follow the rollout',
    driver: 'ebs.csi.aws.com',
    daemonSet: { namespace: 'kube-system', name: 'ebs-csi-node' },
    revision: 2,
    pods: [],
    cronJobs: [],
    workloads: [],
    nodes: [
      { node: 'node-19', stuckPods: ['platform/postgres-2'] },
      { node: 'node-27', stuckPods: ['search/search-7'] },
    ],
    rollout: {
      daemonSet: { namespace: 'kube-system', name: 'ebs-csi-node' },
      newRevision: 2,
      previousRevision: 1,
      updatedNodes: 5,
      desiredNodes: 40,
      counts: { newStuck: 4, newFine: 1, oldStuck: 0, oldFine: 35 },
      nodesOnNewRevision: ['node-19', 'node-27', 'node-33', 'node-41', 'node-05'],
      diff: [],
    },
    drain: [],
    nextSteps: [],
    ...over,
  };
}
