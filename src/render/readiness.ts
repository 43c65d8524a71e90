// A workload's readiness as every renderer words it: "(3 of 5 ready)" from a DaemonSet's desired count, "(3 of 5
// pods ready)" when only the pods that exist could be counted (the desired replica count is not read).
import type { WorkloadReadiness } from '../domain/incident.js';

/** " (3 of 5 pods ready)" or " (3 of 5 ready)" after a workload's name (plain text, no markup); '' when not counted. */
export function readinessSuffix(r: WorkloadReadiness | undefined): string {
  if (!r) return '';
  return ` (${r.ready} of ${r.of}${r.counted === 'existing' ? (r.of === 1 ? ' pod' : ' pods') : ''} ready)`;
}
