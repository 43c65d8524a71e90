// One evaluation pass: every detector, then the correlator. What `rwx scan`, `rwx drain-check` and the slash
// commands run against a cluster cache.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Finding } from '../domain/findings.js';
import type { Incident } from '../domain/incident.js';
import { DEFAULT_DETECT_CONFIG, type DetectConfig } from '../detect/config.js';
import { detectAll } from '../detect/registry.js';
import { correlate } from './correlate.js';
import type { DriverDaemonSets } from './plugin-finder.js';

/** Options of a scan pass. */
export interface ScanOptions {
  now: number;
  config?: Partial<DetectConfig>;
  driverDaemonSets?: DriverDaemonSets;
}

/** Runs detectors and correlator over the cache; linear in its size. */
export function scanIndex(index: ClusterIndex, opts: ScanOptions): { findings: Finding[]; incidents: Incident[] } {
  const findings = detectAll(index, { now: opts.now, config: { ...DEFAULT_DETECT_CONFIG, ...opts.config } });
  const incidents = correlate(index, findings, {
    now: opts.now,
    ...(opts.driverDaemonSets ? { driverDaemonSets: opts.driverDaemonSets } : {}),
  });
  return { findings, incidents };
}
