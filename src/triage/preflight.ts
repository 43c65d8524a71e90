// Preflight, reported before the claims: can we read what triage needs, is each driver in use installed
// (CSIDriver), registered on every node (CSINode), and does its controller have a live leader (Lease)?
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { KindKey } from '../domain/kinds.js';
import type { Lease, Node } from '../domain/objects.js';
import { objectKey, timeMs } from '../domain/refs.js';
import { formatAge } from '../domain/duration.js';
import type { PreflightCheck, TriageOptions } from './types.js';

/** The resources triage reads, with what cannot be decided without each. */
export const NEEDED: readonly { kind: KindKey; resource: string; without: string }[] = [
  { kind: 'pvcs', resource: 'persistentvolumeclaims', without: 'no claim can be classified' },
  { kind: 'pvs', resource: 'persistentvolumes', without: 'BOUND_NO_PV and the driver of bound claims are not decided' },
  {
    kind: 'pods',
    resource: 'pods',
    without: 'consumers unknown: MOUNT_FAILED, UNPUBLISH_STUCK and STALE_ATTACHMENT are not decided',
  },
  { kind: 'volumeAttachments', resource: 'volumeattachments', without: 'STALE_ATTACHMENT is not decided' },
  {
    kind: 'storageClasses',
    resource: 'storageclasses',
    without:
      'binding mode unknown: Pending claims without a pod are not told apart (PENDING_NO_CONSUMER vs PROVISION_FAILED)',
  },
  { kind: 'csiDrivers', resource: 'csidrivers', without: 'CSIDriver objects are not checked' },
  { kind: 'csiNodes', resource: 'csinodes', without: 'driver registration per node (CSINode coverage) is not decided' },
  { kind: 'nodes', resource: 'nodes', without: 'CSINode coverage is not decided' },
  { kind: 'events', resource: 'events', without: 'claims carry no event evidence' },
  { kind: 'leases', resource: 'leases', without: 'the controller leader is not checked' },
];

/** Leader lease default when the Lease does not say (client-go's default). */
const DEFAULT_LEASE_SECONDS = 15;

/** Access per needed resource: from SelfSubjectAccessReview answers when given, and from what the read could not list. */
export function accessChecks(
  index: ClusterIndex,
  access: TriageOptions['access'],
): { checks: PreflightCheck[]; undecided: string[] } {
  const checks: PreflightCheck[] = [];
  const undecided: string[] = [];
  for (const n of NEEDED) {
    const review = access?.find((a) => a.kind === n.kind);
    const unread = index.unreadable.find((u) => u.kind === n.kind);
    if (review?.allowed === false || unread) {
      const why = review?.allowed === false ? 'list not allowed' : (unread?.reason ?? 'not readable');
      checks.push({ check: 'access', subject: n.resource, status: 'unknown', detail: `${why}: ${n.without}` });
      undecided.push(`${n.resource} (${why}): ${n.without}`);
    } else if (review?.allowed === null) {
      checks.push({
        check: 'access',
        subject: n.resource,
        status: 'ok',
        detail: `read (access review unavailable: ${review.reason ?? ''})`,
      });
    } else {
      checks.push({ check: 'access', subject: n.resource, status: 'ok', detail: review ? 'list allowed' : 'read' });
    }
  }
  return { checks, undecided };
}

/** CSIDriver, CSINode coverage and leader Lease checks for each driver in use. */
export function driverChecks(index: ClusterIndex, drivers: readonly string[], now: number): PreflightCheck[] {
  const out: PreflightCheck[] = [];
  const leases = leasesByDriver(index, drivers);
  const nodes = index.readable('nodes') && index.readable('csiNodes') ? schedulableNodes(index) : undefined;
  for (const d of drivers) {
    out.push(csiDriverCheck(index, d));
    out.push(coverageCheck(index, d, nodes));
    out.push(leaderCheck(index, d, leases.get(d), now));
  }
  return out;
}

function csiDriverCheck(index: ClusterIndex, d: string): PreflightCheck {
  if (!index.readable('csiDrivers'))
    return { check: 'csidriver', subject: d, status: 'unknown', detail: 'csidrivers not readable' };
  const cd = index.get('csiDrivers', d);
  if (!cd) {
    return {
      check: 'csidriver',
      subject: d,
      status: 'problem',
      detail: 'no CSIDriver object: the driver is not (fully) installed; kubelet assumes attachRequired=true',
    };
  }
  const s = cd.spec ?? {};
  return {
    check: 'csidriver',
    subject: d,
    status: 'ok',
    detail: `attachRequired=${s.attachRequired ?? true} podInfoOnMount=${s.podInfoOnMount ?? false} modes=${(s.volumeLifecycleModes ?? ['Persistent']).join(',')}`,
  };
}

function schedulableNodes(index: ClusterIndex): { nodes: Node[]; skipped: number } {
  const nodes: Node[] = [];
  let skipped = 0;
  for (const n of index.all('nodes')) {
    // Cordoned or NoSchedule/NoExecute-tainted nodes (control plane, unreachable) often run no node plugin by design.
    const tainted = (n.spec?.taints ?? []).some((t) => t?.effect === 'NoSchedule' || t?.effect === 'NoExecute');
    if (n.spec?.unschedulable || tainted) skipped++;
    else nodes.push(n);
  }
  return { nodes, skipped };
}

function coverageCheck(
  index: ClusterIndex,
  d: string,
  nodes: { nodes: Node[]; skipped: number } | undefined,
): PreflightCheck {
  if (!nodes) return { check: 'csinode', subject: d, status: 'unknown', detail: 'nodes or csinodes not readable' };
  const missing = nodes.nodes
    .map(objectKey)
    .filter((n) => !index.driversOnNode(n)?.has(d))
    .sort();
  const skipped = nodes.skipped ? ` (${nodes.skipped} cordoned or tainted node(s) not counted)` : '';
  if (missing.length === 0)
    return {
      check: 'csinode',
      subject: d,
      status: 'ok',
      detail: `registered on all ${nodes.nodes.length} schedulable node(s)${skipped}`,
    };
  const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, +${missing.length - 10} more` : '');
  return {
    check: 'csinode',
    subject: d,
    status: 'problem',
    nodes: missing,
    detail: `not registered on ${missing.length} of ${nodes.nodes.length} schedulable node(s): ${shown} (works on some nodes, not others)${skipped}`,
  };
}

/** Lease names derived from a driver name, as the CSI sidecars do ("nfs.csi.k8s.io" -> "nfs-csi-k8s-io"). */
export function leaseNameFor(driver: string): string {
  return driver.replace(/[^a-zA-Z0-9-]/g, '-');
}

/** The provisioner's lease per driver: exact sanitized name first, else any lease whose name contains it. One pass over leases. */
function leasesByDriver(index: ClusterIndex, drivers: readonly string[]): Map<string, Lease> {
  const wanted = drivers.map((d) => ({ d, s: leaseNameFor(d) }));
  const exact = new Map<string, Lease>();
  const partial = new Map<string, Lease>();
  for (const l of index.all('leases')) {
    const name = l.metadata?.name ?? '';
    for (const { d, s } of wanted) {
      if (name === s) exact.set(d, l);
      else if (name.includes(s) && !partial.has(d)) partial.set(d, l);
    }
  }
  for (const [d, l] of partial) if (!exact.has(d)) exact.set(d, l);
  return exact;
}

function leaderCheck(index: ClusterIndex, d: string, lease: Lease | undefined, now: number): PreflightCheck {
  if (!index.readable('leases'))
    return { check: 'leader', subject: d, status: 'unknown', detail: 'leases not readable' };
  if (!lease)
    return {
      check: 'leader',
      subject: d,
      status: 'unknown',
      detail: `no leader Lease found (looked for "${leaseNameFor(d)}")`,
    };
  const where = objectKey(lease);
  const holder = lease.spec?.holderIdentity;
  const duration = lease.spec?.leaseDurationSeconds ?? DEFAULT_LEASE_SECONDS;
  const renewed = timeMs(lease.spec?.renewTime) ?? timeMs(lease.spec?.acquireTime);
  if (!holder)
    return {
      check: 'leader',
      subject: d,
      status: 'problem',
      detail: `lease ${where} has no holder: no leader, nothing provisions`,
    };
  if (renewed === undefined)
    return {
      check: 'leader',
      subject: d,
      status: 'problem',
      detail: `lease ${where} held by ${holder} was never renewed: no leader, nothing provisions`,
    };
  const age = now - renewed;
  if (age > 2 * duration * 1000) {
    return {
      check: 'leader',
      subject: d,
      status: 'problem',
      detail: `lease ${where} held by ${holder} last renewed ${formatAge(age)} ago (> 2x ${duration}s): no leader, nothing provisions`,
    };
  }
  return {
    check: 'leader',
    subject: d,
    status: 'ok',
    detail: `lease ${where} held by ${holder}, renewed ${formatAge(Math.max(0, age))} ago`,
  };
}
