// Where the node agents' proof joins the pipeline: between the evaluation and the notifier. Each evaluation's
// incidents get what the agents said about their nodes, and their nodes' drain advice the stale-stage check of the
// same answers (the agents of nodes not asked lately are asked, in the background); when an incident clears, the
// agents of every node it ever asked are asked again, and the notifier's resolution facts carry what they answer:
// are the mounts visible from the host now?
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { DrainAdvice, Incident, Submitted } from '../domain/incident.js';
import { MAX_PROOF_NODES, type NodeReports } from '../domain/proof.js';
import { stageCheck, withStageCheck } from '../advise/stale-stage.js';
import type { ObserveResolution } from '../domain/resolution.js';
import { buildProof, incidentProof, proofNodes } from '../correlate/proof.js';
import type { NodeProofs } from './proof.js';

/** What notifierWithProof wraps and is: the notifier as the pipeline uses it (NotifierPort in app.ts). */
interface NotifierPort {
  submit(incidents: Incident[], now: number): Promise<Submitted | void>;
  close(): Promise<void>;
}

/**
 * Per open incident key, the nodes its record says it had (history.nodes): those its resolution reads. Read once,
 * at the first submission, so an incident that clears while the bot was down (or before this replica took over)
 * still has its nodes asked again before the resolution says what they show.
 */
export type OpenIncidentNodes = () => Promise<ReadonlyMap<string, readonly string[]>>;

/** The notifier behind the proof: incidents are annotated before they are submitted. */
export function notifierWithProof(
  notifier: NotifierPort,
  proofs: NodeProofs,
  index: () => ClusterIndex | undefined,
  openNodes?: OpenIncidentNodes,
): NotifierPort {
  // Per open incident key, every node its proof asked (bounded): those are checked again when it clears. Until
  // the first submission it is the records' (openNodes); a failed read leaves it empty, as before a restart.
  let asked: Map<string, string[]> | undefined = openNodes ? undefined : new Map();
  // Incidents the notifier kept open though the last evaluation did not report them (the keep-firing window):
  // their nodes were asked again when they went, and are again only once they come back and go.
  let kept = new Set<string>();
  const seeded = async (): Promise<Map<string, string[]>> => {
    const open = await openNodes!().catch(() => new Map<string, readonly string[]>());
    return new Map([...open].map(([k, nodes]) => [k, nodes.slice(0, MAX_PROOF_NODES)]));
  };
  return {
    close: () => notifier.close(),
    async submit(incidents: Incident[], now: number) {
      const was = (asked ??= await seeded());
      const keys = new Set(incidents.map((i) => i.key));
      const cleared = [...was].filter(([k]) => !keys.has(k) && !kept.has(k)).flatMap(([, nodes]) => nodes);
      if (cleared.length) await proofs.refresh([...new Set(cleared)]);
      const idx = index();
      const next = new Map<string, string[]>();
      const annotated = incidents.map((incident) => {
        const { nodes } = proofNodes(incident);
        if (nodes.length === 0 || !idx) return incident;
        proofs.want(nodes);
        const before = was.get(incident.key) ?? [];
        next.set(incident.key, [...new Set([...before, ...nodes])].slice(0, MAX_PROOF_NODES));
        const proof = incidentProof(idx, incident, (n) => proofs.stateOf(n));
        const drain = withStages(idx, incident.drain, nodes, proofs);
        return proof ? { ...incident, proof, drain } : { ...incident, drain };
      });
      const submitted = await notifier.submit(annotated, now);
      kept = new Set(submitted?.kept.map((i) => i.key));
      for (const k of kept) if (!next.has(k) && was.has(k)) next.set(k, was.get(k)!);
      asked = next;
      return submitted;
    },
  };
}

/**
 * The incident's drain advice with the stale-stage check of each node its proof asked and heard from
 * (advise/stale-stage.ts). A node whose agent could not say is left as it is: the proof's own lines say so once
 * ("proof unavailable: ..."), and the record, which keeps up to 200 node rows, does not repeat it on each.
 */
function withStages(
  index: ClusterIndex,
  drain: readonly DrainAdvice[],
  asked: readonly string[],
  proofs: NodeProofs,
): DrainAdvice[] {
  const reports: NodeReports = { kind: 'asked', states: new Map(asked.map((n) => [n, proofs.stateOf(n)])) };
  return drain.map((d) => {
    if (!reports.states.has(d.node)) return d;
    const check = stageCheck(index, d.node, reports);
    return check.checked ? withStageCheck(d, check) : d;
  });
}

/**
 * The resolution facts with the agents' answers for the incident's nodes (its history's, at most
 * MAX_PROOF_NODES), as the cache holds them: refreshed by notifierWithProof when the incident cleared, at most a
 * TTL old after a Resolve click. Not for `completionOnly` (the CronJob question).
 */
export function observeWithProof(observe: ObserveResolution, proofs: () => NodeProofs | undefined): ObserveResolution {
  return (history, now, completionOnly) => {
    const facts = observe(history, now, completionOnly);
    const p = proofs();
    if (!facts || completionOnly || !p || history.nodes.length === 0) return facts;
    const nodes = history.nodes.slice(0, MAX_PROOF_NODES);
    const omitted = history.nodes.length - nodes.length + history.omittedNodes;
    return { ...facts, proof: buildProof(nodes, (n) => p.stateOf(n), { omitted }) };
  };
}
