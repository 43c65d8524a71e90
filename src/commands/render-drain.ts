// `/rwx drain NODE`: the drain advice as a Slack message. BLOCK says why with the 2x2 counts of the rollout the
// node's stuck mounts follow, in words (a drain turns working nodes into broken ones) and what to do
// instead; CAUTION says what will hang; OK gives the one-line reason.
import type { DrainAdvice, Incident, RolloutEvidence } from '../domain/incident.js';
import { escapeSlack, untrusted } from '../render/escape.js';
import { respond, type TextBlock, type CommandReply } from './message.js';
import { context, header, section } from '../render/slack-blocks.js';

const MARK: Record<DrainAdvice['decision'], string> = {
  BLOCK: ':no_entry: *BLOCK*',
  CAUTION: ':warning: *CAUTION*',
  OK: ':white_check_mark: *OK*',
  UNKNOWN: ':grey_question: *UNKNOWN*',
};

/** The rollout incident a BLOCK refers to: the one listing this node, else the only rollout incident. */
export function rolloutFor(node: string, incidents: readonly Incident[]): RolloutEvidence | undefined {
  const rollouts = incidents.filter((i) => i.verdict === 'FOLLOWS_ROLLOUT' && i.rollout);
  const mine = rollouts.find(
    (i) => i.node === node || i.nodes.some((n) => n.node === node) || i.rollout?.nodesOnNewRevision.includes(node),
  );
  return (mine ?? (rollouts.length === 1 ? rollouts[0] : undefined))?.rollout;
}

/** The 2x2 counts in words, one line per revision (new, previous): no table, a phone keeps its meaning. */
export function countsLines(r: RolloutEvidence): string[] {
  const c = r.counts;
  return [
    `• revision ${r.newRevision} (new): ${c.newStuck} with stuck mounts, ${c.newFine} mounting fine`,
    `• revision ${r.previousRevision ?? '?'} (previous): ${c.oldStuck} with stuck mounts, ${c.oldFine} mounting fine`,
  ];
}

/** Renders drain advice; `incidents` supply the rollout evidence for BLOCK. */
export function renderDrain(advice: DrainAdvice, incidents: readonly Incident[], pub: boolean): CommandReply {
  const node = escapeSlack(advice.node);
  const head = `${MARK[advice.decision]} — drain \`${node}\``;
  const reason = untrusted(advice.reason, 1500);
  const blocks: TextBlock[] = [header(`Drain ${advice.node}: ${advice.decision}`), section(`${head}\n${reason}`)];
  const lines = [head, reason];
  const rollout = advice.decision === 'BLOCK' ? rolloutFor(advice.node, incidents) : undefined;
  if (rollout) {
    const ds = escapeSlack(`${rollout.daemonSet.namespace}/${rollout.daemonSet.name}`);
    const table =
      `*Nodes by node plugin revision* (\`${ds}\`: ${rollout.updatedNodes} of ${rollout.desiredNodes} nodes updated)\n` +
      countsLines(rollout).join('\n');
    blocks.push(section(table));
    lines.push(table);
  }
  if (advice.steps.length > 0) {
    const title =
      advice.decision === 'CAUTION'
        ? '*Watch for*'
        : advice.decision === 'BLOCK'
          ? '*Do this instead*'
          : advice.decision === 'UNKNOWN'
            ? '*To get an answer*'
            : '*Notes*';
    const steps = `${title}\n${advice.steps.map((s, i) => `${i + 1}. ${untrusted(s, 400)}`).join('\n')}`;
    blocks.push(section(steps));
    lines.push(steps);
  }
  blocks.push(context('Read-only advice: nothing was changed in the cluster.'));
  return { response: respond(lines.join('\n'), blocks, pub) };
}

/** The reply when the node does not exist in the cluster view. */
export function renderUnknownNode(node: string, pub: boolean): CommandReply {
  const text = `:grey_question: There is no node \`${untrusted(node, 253)}\` in the cluster. Check the name with \`kubectl get nodes\`.`;
  return { response: respond(text, [section(text)], pub) };
}
