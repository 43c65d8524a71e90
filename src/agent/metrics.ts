// The agent's Prometheus metrics, on a registry of its own, set from each report. Names follow the Prometheus
// conventions `promtool check metrics` enforces: snake_case, base units, _total only on counters.
import { Counter, Gauge, Registry } from 'prom-client';
import type { AgentReport } from '../domain/node-report.js';

const PROPAGATION = ['ok', 'lost', 'unknown'] as const;
const STAGE_STATES = ['IN_USE', 'ORPHANED', 'LEFTOVER_DIR', 'HIDDEN'] as const;

/** Every metric `rwx agent` serves on /metrics. */
export class AgentMetrics {
  readonly registry = new Registry();
  private readonly scans = new Counter({
    name: 'rwx_agent_scans_total',
    help: 'Scans of the node (process table, mount namespaces, kubelet directory)',
    registers: [this.registry],
  });
  private readonly failures = new Counter({
    name: 'rwx_agent_scan_failures_total',
    help: 'Scans that failed outright (a report with unreadable parts is not a failure)',
    registers: [this.registry],
  });
  private readonly duration = new Gauge({
    name: 'rwx_agent_scan_duration_seconds',
    help: 'Duration of the last scan',
    registers: [this.registry],
  });
  private readonly lastScan = new Gauge({
    name: 'rwx_agent_last_scan_timestamp_seconds',
    help: 'Unix time of the last completed scan',
    registers: [this.registry],
  });
  private readonly namespaces = new Gauge({
    name: 'rwx_agent_mount_namespaces',
    help: 'Distinct mount namespaces on the node, the host namespace included',
    registers: [this.registry],
  });
  private readonly unreadable = new Gauge({
    name: 'rwx_agent_unreadable_processes',
    help: 'Processes whose mount namespace could not be read (propagation status is then unknown unless lost)',
    registers: [this.registry],
  });
  private readonly hidden = new Gauge({
    name: 'rwx_agent_hidden_csi_mounts',
    help: 'CSI mounts under the kubelet directory held in a mount namespace the host cannot see',
    registers: [this.registry],
  });
  private readonly propagation = new Gauge({
    name: 'rwx_agent_propagation_status',
    help: 'Propagation check result: 1 for the current status (ok, lost, unknown), 0 for the others',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly staged = new Gauge({
    name: 'rwx_agent_staged_volumes',
    help: 'Staged CSI volumes (globalmount) by state: IN_USE, ORPHANED, LEFTOVER_DIR, HIDDEN',
    labelNames: ['state'],
    registers: [this.registry],
  });

  /** Records a completed scan. */
  observe(report: AgentReport, seconds: number, now: number): void {
    this.scans.inc();
    this.duration.set(seconds);
    this.lastScan.set(Math.floor(now / 1000));
    const p = report.propagation;
    this.namespaces.set(p.namespacesScanned);
    this.unreadable.set(p.unreadableProcesses.length);
    this.hidden.set(p.namespaces.reduce((n, ns) => n + ns.hidden.filter((m) => m.csi).length, 0));
    for (const s of PROPAGATION) this.propagation.set({ status: s }, p.status === s ? 1 : 0);
    for (const s of STAGE_STATES)
      this.staged.set({ state: s }, report.stagedVolumes.volumes.filter((v) => v.state === s).length);
  }

  /** Records a scan that threw. */
  failed(): void {
    this.scans.inc();
    this.failures.inc();
  }
}
