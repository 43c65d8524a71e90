// Running a parsed command against the bot's read-only view of the cluster. Everything the handlers need comes in
// through CommandServices, so the same code serves the Bolt app, tests on a simulator snapshot, and the CLI.
// Nothing here writes anywhere: the cluster view is the ClusterIndex the watchers keep, and incident records are
// only listed. Never throws: failures become a short, honest reply.
import type { Clock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { NodeReportState, NodeReports } from '../domain/proof.js';
import type { Evaluation } from '../evaluate/evaluate.js';
import { isRwxError, toRwxError } from '../errors.js';
import { blindSpots } from '../advise/blind.js';
import type { TriageOptions, TriageReport } from '../triage/types.js';
import { untrusted } from '../render/escape.js';
import { renderHelp, renderUsage } from './help.js';
import { respond, type CommandReply } from './message.js';
import { section } from '../render/slack-blocks.js';
import type { ParsedCommand } from './parse.js';
import { renderDrain, renderUnknownNode } from './render-drain.js';
import { renderNode } from './render-node.js';
import { renderFleetStatus, renderStatus, type ClusterLiveness, type OpenIncident } from './render-status.js';
import { renderTriage } from './render-triage.js';
import { engineFilters, narrowReport } from './scope.js';

/** What the command handlers read. Every member is read-only with respect to the cluster. */
export interface CommandServices {
  clock: Clock;
  /** The cluster cache the bot keeps current (the same ClusterIndex the detectors read). */
  cluster: { index(): ClusterIndex };
  /** The triage engine (src/triage). */
  triage(index: ClusterIndex, opts: TriageOptions): TriageReport;
  /**
   * One evaluation of this cluster view (src/evaluate: detect -> correlate -> advise): the incidents, and drain
   * advice for a node (throws RwxError NOT_FOUND for an unknown node).
   */
  evaluate(
    index: ClusterIndex,
    now: number,
    opts?: { nodeReports?: NodeReports },
  ): Pick<Evaluation, 'incidents' | 'drain'>;
  /** Open incidents from the incident store, for /rwx status. */
  openIncidents(): Promise<OpenIncident[]>;
  /**
   * What the node agent on NODE answers now (docs/agent.md), for /rwx node and /rwx drain (its stale-stage check);
   * absent where no agent can be asked. Never throws: a failure is an `unavailable` state with the reason.
   */
  nodeReport?(node: string): Promise<NodeReportState>;
  /**
   * What the node agents of the cluster view answer now, for /rwx triage (and drain advice); absent: the triage
   * says they were not asked. Never throws.
   */
  nodeReports?(index: ClusterIndex): Promise<NodeReports>;
  /** In a fleet (src/fleet): every cluster and whether it answers; /rwx status then groups by cluster. */
  clusters?(): Promise<ClusterLiveness[]>;
}

/** Runs one parsed command and renders the reply. Never throws. */
export async function runCommand(cmd: ParsedCommand, svc: CommandServices): Promise<CommandReply> {
  const pub = 'public' in cmd ? cmd.public : false;
  try {
    switch (cmd.kind) {
      case 'help':
        return renderHelp();
      case 'usage':
        return renderUsage(cmd.error);
      case 'status':
        return svc.clusters
          ? renderFleetStatus(await svc.openIncidents(), await svc.clusters(), svc.clock.now(), pub, cmd.cluster)
          : renderStatus(await svc.openIncidents(), svc.clock.now(), pub, blindSpots(svc.cluster.index(), [], true));
      case 'triage': {
        const index = svc.cluster.index();
        const nodeReports = svc.nodeReports ? await svc.nodeReports(index) : undefined;
        const now = svc.clock.now();
        const report = svc.triage(index, { now, ...engineFilters(cmd.scope), ...(nodeReports ? { nodeReports } : {}) });
        return renderTriage(narrowReport(report, cmd.scope), cmd.scope, pub);
      }
      case 'drain':
        return await drain(cmd.node, pub, svc);
      case 'node':
        return await node(cmd.node, pub, svc);
    }
  } catch (e) {
    return failure(e, pub);
  }
}

/** Why /rwx drain has no stage check where no agent can be asked. */
const AGENTS_NOT_ASKED = 'this bot does not ask node agents';

async function drain(node: string, pub: boolean, svc: CommandServices): Promise<CommandReply> {
  const index = svc.cluster.index();
  // When nodes are readable, an absent Node is known to be unknown; otherwise the advice decides.
  if (index.readable('nodes') && index.get('nodes', node) === undefined) return renderUnknownNode(node, pub);
  // The node's agent, asked now (as /rwx node): a volume still staged there with no pod is part of the answer.
  const nodeReports: NodeReports = svc.nodeReport
    ? { kind: 'asked', states: new Map([[node, await svc.nodeReport(node)]]) }
    : { kind: 'not-asked', reason: AGENTS_NOT_ASKED };
  const now = svc.clock.now();
  const { incidents, drain } = svc.evaluate(index, now, { nodeReports });
  try {
    return renderDrain(drain(node), incidents, pub);
  } catch (e) {
    if (isRwxError(e, 'NOT_FOUND')) return renderUnknownNode(node, pub);
    throw e;
  }
}

async function node(name: string, pub: boolean, svc: CommandServices): Promise<CommandReply> {
  const index = svc.cluster.index();
  if (index.readable('nodes') && index.get('nodes', name) === undefined) return renderUnknownNode(name, pub);
  const state: NodeReportState = svc.nodeReport ? await svc.nodeReport(name) : { kind: 'no-agent' };
  return renderNode(name, state, pub);
}

/** A one-line failure reply; the error message is untrusted (it may quote cluster data). */
function failure(e: unknown, pub: boolean): CommandReply {
  const err = toRwxError(e);
  const text = `:warning: Sorry, that did not work: ${untrusted(err.message, 300)} (${err.code}). Nothing was changed.`;
  return { response: respond(text, [section(text)], pub), failed: true };
}
