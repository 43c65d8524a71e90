// Drain advice for one node: BLOCK, CAUTION, UNKNOWN or OK, with the reason and what to do instead. Read-only, pure.
//
// BLOCK: a FOLLOWS_ROLLOUT incident has stuck mounts on this node, or the node's plugin runs the bad revision, or
//   its plugin pod is being replaced right now (the rollout reaches it next). Draining moves its pods onto nodes
//   the rollout has reached or will reach: it turns working pods into stuck ones. A BLOCK stands even when some
//   input could not be read: more data can only add reasons not to drain.
// UNKNOWN: an input of the decision could not be read (blind.ts): nothing says the drain is safe, so it is not OK
//   and not CAUTION; the advice says what could not be read and what that leaves undecided.
// CAUTION: the node holds a stuck pod of any incident, pods stuck Terminating with claims, or stale
//   VolumeAttachments (drain-caution.ts): the drain will hang, strand the pods it moves, or move a pod onto the
//   same fault elsewhere; or, with the node agents' answers, a volume still staged there with no pod that holds it
//   attached (stale-stage.ts): the drain will not release it.
// OK: otherwise, with a one-line reason. Nodes still on the old revision are OK: cordoning the bad-revision nodes
//   first keeps their evicted pods off broken nodes.
//
// This file puts the answer together; BLOCK is decided in drain-block.ts, CAUTION in drain-caution.ts, and what
// each answer says is worded in drain-wording.ts.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { BlindSpot, DrainAdvice, Incident } from '../domain/incident.js';
import type { NodeReports } from '../domain/proof.js';
import { RwxError } from '../errors.js';
import { DEFAULT_DETECT_CONFIG } from '../detect/config.js';
import type { NodeHealth } from '../domain/location.js';
import { notReady } from '../domain/node-health.js';
import { blindSentence } from './blind.js';
import { blockFor } from './drain-block.js';
import { cautionFor, type Caution } from './drain-caution.js';
import { byNode, type ByNode } from './drain-lookup.js';
import { INCIDENTS_UNDECIDED, NOT_CONSULTED, OK_WORDING, unknownWording } from './drain-wording.js';
import { staleAttachments } from './stale-attachments.js';
import { stageCheck, withStageCheck } from './stale-stage.js';
import { runningConsumers } from './running-consumers.js';

export { NOT_CONSULTED } from './drain-wording.js';
export { staleAttachments } from './stale-attachments.js';

/** Options for adviseDrain. */
export interface DrainOptions {
  /** How long an attachment may sit unused or half-detached before it counts as stale (default: stuckAfter). */
  staleAfterMs?: number;
  /** Inputs that could not be read (blind.ts): then no answer but BLOCK is given, UNKNOWN instead. */
  blind?: readonly BlindSpot[];
  /** The bot's open incidents (see IncidentsInput); default 'read'. */
  incidents?: IncidentsInput;
  /**
   * The node agents' answers, for the stale-stage check (stale-stage.ts); absent: the caller checks none and the
   * advice says nothing of staged volumes. The serve pipeline passes its agents' current answers on every pass.
   */
  nodeReports?: NodeReports;
}

/**
 * What the advice knows of the bot's open incidents, which keep a partly recovered rollout incident open (and so
 * its nodes blocked) where a fresh look would no longer see the rollout: read (their keys went into the
 * correlation), unreadable (asked for, no answer: a blind spot, so UNKNOWN unless BLOCK), or not consulted (no store
 * given: every answer but BLOCK says so in its last step, since it may be wrong exactly there).
 */
export type IncidentsInput = 'read' | 'not consulted' | { unreadable: string };

/** The blind spot of open incidents that could not be read, if any. */
function incidentsBlind(input: IncidentsInput | undefined): BlindSpot[] {
  if (input === undefined || typeof input === 'string') return [];
  return [{ kind: 'open incidents', reason: input.unreadable, undecided: INCIDENTS_UNDECIDED }];
}

/** An answer other than BLOCK given without the open incidents: its last step says so, and a field. */
function notConsulted(advice: DrainAdvice): DrainAdvice {
  if (advice.decision === 'BLOCK') return advice;
  return { ...advice, steps: [...advice.steps, NOT_CONSULTED], openIncidents: 'not consulted' };
}

/** Drain advice for one node of an evaluation; throws RwxError('NOT_FOUND') when the cluster has no such node. */
export type DrainAdvisor = (node: string) => DrainAdvice;

/**
 * Drain advice for any node, over one evaluation's incidents. The per-node lookups are built once here, so the
 * advisor answers every affected node in O(incidents) each; the incidents must not change while it is in use.
 */
export function drainAdvisor(
  index: ClusterIndex,
  incidents: readonly Incident[],
  now: number,
  opts: DrainOptions = {},
): DrainAdvisor {
  const lookup = byNode(incidents);
  const blind = [...(opts.blind ?? []), ...incidentsBlind(opts.incidents)];
  const staleAfterMs = opts.staleAfterMs ?? DEFAULT_DETECT_CONFIG.stuckAfterMs;
  const base = adviser(index, lookup, incidents, now, blind, staleAfterMs);
  const reports = opts.nodeReports;
  const advise: DrainAdvisor = reports ? (node) => withStageCheck(base(node), stageCheck(index, node, reports)) : base;
  return opts.incidents === 'not consulted' ? (node) => notConsulted(advise(node)) : advise;
}

// The advisor proper, over the per-node lookups.
function adviser(
  index: ClusterIndex,
  lookup: ByNode,
  incidents: readonly Incident[],
  now: number,
  blind: readonly BlindSpot[],
  staleAfterMs: number,
): DrainAdvisor {
  return (node) => {
    const nodeKnown = index.get('nodes', node) !== undefined || index.podsOnNode(node).length > 0;
    // Unknown only when something could have shown it: with nodes and pods both unreadable, the advice is UNKNOWN.
    if (!nodeKnown && (index.readable('nodes') || index.readable('pods')))
      throw new RwxError('NOT_FOUND', `node "${node}" not found in the cluster`);
    const blocked = blockFor(index, lookup, incidents, node);
    const caution = cautionFor(node, {
      terminating: lookup.terminating.get(node) ?? [],
      stale: staleAttachments(index, node, now, staleAfterMs),
      stuck: lookup.stuck.get(node) ?? [],
      ...downOf(index, node),
      running: runningConsumers(index, node, lookup.unmountable),
    });
    const steps = caution?.steps ?? [];
    // A BLOCK holds whatever else could not be read; every other answer needs every input.
    if (blocked) return withBlind({ ...blocked, steps: [...blocked.steps, ...steps] }, blind);
    if (blind.length > 0) return unknownAdvice(node, blind, caution);
    return caution ? { node, decision: 'CAUTION', ...caution } : okAdvice(incidents, node);
  };
}

/** The node's health for the CAUTION when it is not Ready. */
function downOf(index: ClusterIndex, node: string): { down?: NodeHealth } {
  const down = notReady(index, node);
  return down ? { down } : {};
}

/** Drain advice for `node` alone (one advisor, used once); throws RwxError('NOT_FOUND') for an unknown node. */
export function adviseDrain(
  index: ClusterIndex,
  incidents: readonly Incident[],
  node: string,
  now: number,
  opts: DrainOptions = {},
): DrainAdvice {
  return drainAdvisor(index, incidents, now, opts)(node);
}

/** Notes on a BLOCK what could not be read (the BLOCK stands: more data can only add reasons not to drain). */
function withBlind(advice: DrainAdvice, blind: readonly BlindSpot[]): DrainAdvice {
  if (blind.length === 0) return advice;
  return { ...advice, steps: [...advice.steps, blindSentence(blind)], blind: [...blind] };
}

/** UNKNOWN: what could not be read and what that leaves undecided; what is known to be wrong is still said. */
function unknownAdvice(node: string, blind: readonly BlindSpot[], caution: Caution | undefined): DrainAdvice {
  return { node, decision: 'UNKNOWN', ...unknownWording(node, blind, caution), blind: [...blind] };
}

/** OK, worded by what is around the node: a rollout elsewhere, a fault of the node's own, or nothing. */
function okAdvice(incidents: readonly Incident[], node: string): DrainAdvice {
  const rollout = incidents.find((i) => i.verdict === 'FOLLOWS_ROLLOUT' && i.rollout)?.rollout;
  if (rollout) return { node, decision: 'OK', ...OK_WORDING.besideRollout(node, rollout) };
  const own = incidents.some((i) => i.verdict === 'FOLLOWS_NODE' && i.node === node);
  if (own) return { node, decision: 'OK', ...OK_WORDING.ownFault(node) };
  return { node, decision: 'OK', ...OK_WORDING.clear(node) };
}
