// What of an incident is worth a notification: who is affected, where, the verdict and its counts; not the words
// the renderers or the correlator put around them. The root is edited when this changes, so a release that
// rewords a message does not edit every open thread, and ages (which change by themselves) never count.
import type { Incident } from '../domain/incident.js';
import { proofKeys } from '../domain/proof.js';
import { hashOf } from '../render/slack-blocks.js';

/**
 * The facts the root states, in a stable shape: the verdict and what it names (driver, DaemonSet, revision, node),
 * the rollout's counts and its nodes, each node's plugin revision and stuck pods, each workload's pods, each pod's
 * kind and node, each CronJob's missed runs and last success. Left out: title, summary, next steps, explanations,
 * events, drain advice, ages (text, or derived from these facts, or shown only in the thread).
 */
export function notifiable(incident: Incident): unknown {
  const r = incident.rollout;
  return {
    key: incident.key,
    verdict: incident.verdict,
    driver: incident.driver,
    daemonSet: incident.daemonSet,
    revision: incident.revision,
    node: incident.node,
    rollout: r && {
      daemonSet: r.daemonSet,
      newRevision: r.newRevision,
      previousRevision: r.previousRevision,
      rolloutStart: r.rolloutStart,
      updatedNodes: r.updatedNodes,
      desiredNodes: r.desiredNodes,
      counts: [r.counts.newStuck, r.counts.newFine, r.counts.oldStuck, r.counts.oldFine],
      nodesOnNewRevision: r.nodesOnNewRevision,
      rolledBack: r.rolledBack ?? false,
      recoveringPods: r.recoveringPods ?? [],
    },
    nodes: incident.nodes.map((n) => [n.node, n.plugin?.revision, n.stuckPods]),
    workloads: incident.workloads.map((w) => [w.kind, w.namespace, w.name, w.pods]),
    pods: incident.pods.map((p) => [p.key, p.kind, p.node]),
    cronJobs: incident.cronJobs.map((c) => [c.key, c.missedRuns, c.lastSuccessfulTime]),
    // What the node agents proved (not pending requests, failure reasons or times): a new proof edits the root.
    ...(incident.proof ? { proof: proofKeys(incident.proof) } : {}),
    // What could not be read (absent, so left out of the hash, when everything was): the root says so while it lasts.
    blind: incident.blind?.map((b) => b.kind),
  };
}

/** The hash of notifiable(incident): the evaluator records it, and the root is edited when it changes. */
export function notifiableHash(incident: Incident): string {
  return hashOf(notifiable(incident));
}
