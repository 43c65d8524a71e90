// The rules of classifyClaim about the claim's binding, before its pods are read: a claim that lost its volume
// (LOST), one not bound yet (provisioning, scheduling, or a class that waits for its first consumer), and one
// bound to a volume the cluster does not have (BOUND_NO_PV).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { EventEvidence } from '../domain/findings.js';
import type { Pod } from '../domain/objects.js';
import { nsKey } from '../domain/refs.js';
import {
  makeReport,
  podEvidence,
  waitsByDesign,
  type ClaimRef,
  type ClaimRule,
  type ClassifyContext,
} from './classify-state.js';
import { eventEvidence } from './events.js';
import type { ClaimReport, Phase } from './types.js';

/** LOST: the claim's volume is gone; its pods still reference it. */
export const lost: ClaimRule = {
  name: 'claim lost',
  classify: ({ index, c, status, consumers, claimEvents }) =>
    status !== 'Lost'
      ? undefined
      : makeReport(
          index,
          c,
          'LOST',
          `claim lost its volume ${c.volume ?? '(none named)'}; ${consumers.length} pod(s) still reference it`,
          { events: claimEvents(), pods: consumers.map(podEvidence) },
        ),
};

/** Not bound yet: provisioning, scheduling or a class that waits (classifyUnbound). */
export const unbound: ClaimRule = {
  name: 'unbound',
  classify: ({ index, c, ctx, status, consumers, claimEvents }) =>
    status === 'Bound' ? undefined : classifyUnbound(index, c, ctx, consumers, claimEvents()),
};

/** BOUND_NO_PV: bound to a volume the cluster does not have (only said when volumes are readable). */
export const boundNoPv: ClaimRule = {
  name: 'bound to a missing volume',
  classify: ({ index, c, ctx, consumers, claimEvents }) =>
    !c.volume || !ctx.readable.pvs || index.get('pvs', c.volume)
      ? undefined
      : makeReport(index, c, 'BOUND_NO_PV', `claim is Bound but PV ${c.volume} is missing`, {
          events: claimEvents(),
          pods: consumers.map(podEvidence),
        }),
};

/** The annotation the scheduler sets on a WaitForFirstConsumer claim once it picked a node: provisioning asked. */
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/**
 * A claim of a WaitForFirstConsumer class that no node was selected for, whose pods are all unscheduled: the
 * provisioner was never asked, the scheduling layer holds it. The detail names the scheduler's last word.
 */
function waitingToSchedule(
  index: ClusterIndex,
  c: ClaimRef,
  consumers: Pod[],
  now: number,
): { detail: string; events: EventEvidence[] } | undefined {
  if (consumers.length === 0 || !waitsByDesign(index, c.scName)) return undefined;
  const pvc = index.get('pvcs', nsKey(c.namespace, c.name));
  if (pvc?.metadata?.annotations?.[SELECTED_NODE] || consumers.some((p) => p.spec?.nodeName)) return undefined;
  const events = consumers.flatMap((p) =>
    eventEvidence(index, 'Pod', p.metadata?.namespace ?? '', p.metadata?.name ?? '', SCHEDULING, now),
  );
  const top = events[0];
  return {
    detail: `unbound by design: class ${c.scName} is WaitForFirstConsumer and ${consumers.length} pod(s) using it are not scheduled${top ? `: ${top.reason}: ${top.message}` : ''}; the provisioner has not been asked`,
    events,
  };
}

/** The scheduler's reason when it places a pod nowhere (pkg/scheduler/schedule_one.go). */
const SCHEDULING: ReadonlySet<string> = new Set(['FailedScheduling']);

/** The report of a claim not bound yet: scheduling, provisioning, or a class that waits by design. */
function classifyUnbound(
  index: ClusterIndex,
  c: ClaimRef,
  ctx: ClassifyContext,
  consumers: Pod[],
  events: EventEvidence[],
): ClaimReport {
  const scName = c.scName;
  const report = (phase: Phase, detail: string, ev: Partial<ClaimReport['evidence']>): ClaimReport =>
    makeReport(index, c, phase, detail, ev);
  const pods = consumers.map(podEvidence);
  // The newest Warning says why (ProvisioningFailed); Normal ones (ExternalProvisioning) only say it is waiting.
  const top = events.find((e) => e.type === 'Warning') ?? events[0];
  const why = top ? `: ${top.reason}: ${top.message}` : '';
  const unscheduled = waitingToSchedule(index, c, consumers, ctx.now);
  if (unscheduled) return report('UNSCHEDULABLE', unscheduled.detail, { events: unscheduled.events, pods });
  if (consumers.length > 0)
    return report('PROVISION_FAILED', `unbound but ${consumers.length} pod(s) waiting${why}`, { events, pods });
  if (scName === '')
    return report('PROVISION_FAILED', 'unbound, no StorageClass (static binding only) and no matching PV', { events });
  if (scName === null)
    return report('PROVISION_FAILED', 'unbound, no StorageClass named and no default class assigned', { events });
  const podsNote = ctx.readable.pods ? '' : ' (pods not readable: consumers unknown)';
  if (!ctx.readable.storageClasses) {
    return report(
      'PENDING_NO_CONSUMER',
      `unbound with no pod; correct only if class ${scName} is WaitForFirstConsumer (storageclasses not readable)${podsNote}`,
      { events },
    );
  }
  const sc = index.get('storageClasses', scName);
  if (!sc) return report('PROVISION_FAILED', `unbound: StorageClass ${scName} does not exist`, { events });
  if (sc.volumeBindingMode === 'WaitForFirstConsumer') {
    return report(
      'PENDING_NO_CONSUMER',
      `unbound with no pod: correct behaviour, class ${scName} is WaitForFirstConsumer${podsNote}`,
      { events },
    );
  }
  return report(
    'PROVISION_FAILED',
    `unbound with no pod on Immediate-binding class ${scName}: provisioner ${sc.provisioner ?? '?'} has not created a volume${why}`,
    { events },
  );
}
