// The sync of the pipeline: the detectors and the one evaluation (src/evaluate) bound to the configuration, as the
// pipeline calls them. Each pass hands the evaluation the node agents' current answers about the nodes of its
// stuck pods and the cluster's identity, so proof, drain advice and keys are made there, once.
import type { Finding } from '../domain/findings.js';
import type { DriverDaemonSets } from '../correlate/plugin-finder.js';
import type { NodeReports } from '../domain/proof.js';
import { detectContext } from '../detect/config.js';
import { detectCronJob, detectPod } from '../detect/registry.js';
import { evaluationSteps } from '../evaluate/evaluate.js';
import { scopedKey, type RecordScope } from '../fleet/keys.js';
import { runHeld } from '../watch/yielding.js';
import type { AgentAnswers } from './agents.js';
import type { Sync } from './pipeline.js';

/** The thresholds, overrides and identity the sync needs (from Config). */
export interface SyncConfig {
  stuckAfterMs: number;
  cronJobGraceMs: number;
  driverDaemonSets: DriverDaemonSets;
  /** RWX_CLUSTER_NAME, stated on every incident (EvaluateOptions.cluster); undefined: none. */
  clusterName?: string;
  /** Where the records are (fleet/keys.ts): in a fleet, the incident keys name the cluster. Default: not a fleet. */
  scope?: RecordScope;
  /** The node agents (serve/proof.ts NodeProofs); undefined: never asked, no proof. */
  agents?: Pick<AgentAnswers, 'stateOf'>;
}

/** The real detectors and evaluation (correlate, then advise) with `cfg` applied. */
export function realSync(cfg: SyncConfig): Sync {
  const detect = { stuckAfterMs: cfg.stuckAfterMs, cronJobGraceMs: cfg.cronJobGraceMs };
  const scope = cfg.scope ?? { prefix: '' };
  const qualifyKeys = scope.cluster !== undefined;
  const name = cfg.clusterName ?? scope.cluster;
  const identity = name ? { cluster: { name, qualifyKeys } } : {};
  return {
    detectPod: (index, pod, now) => detectPod(index, pod, detectContext(now, detect)),
    detectCronJob: (index, cj, now) => detectCronJob(index, cj, detectContext(now, detect)),
    // The evaluation hands the event loop back between its steps, with the cache held meanwhile: still one pass
    // over one state of the cluster (src/watch/yielding.ts).
    evaluate: async (index, findings, now, openKeys) => {
      const reports = cfg.agents ? { nodeReports: agentsOnFindings(cfg.agents, findings) } : {};
      const opts = {
        now,
        config: detect,
        driverDaemonSets: cfg.driverDaemonSets,
        openKeys: ownKeys(openKeys, scope),
        ...reports,
      };
      return (await runHeld(index, () => evaluationSteps(index, findings, { ...opts, ...identity }))).incidents;
    },
  };
}

/** What the agents answer now about the nodes of the findings' stuck pods: the nodes an incident can ask. */
function agentsOnFindings(agents: Pick<AgentAnswers, 'stateOf'>, findings: readonly Finding[]): NodeReports {
  const nodes = new Set(findings.flatMap((f) => (f.kind !== 'cronjob-missed' && f.node ? [f.node] : [])));
  return { kind: 'asked', states: new Map([...nodes].map((n) => [n, agents.stateOf(n)])) };
}

/** The open keys as the correlator names incidents: in a fleet, the records' keys carry the cluster, its do not. */
function ownKeys(keys: ReadonlySet<string>, scope: RecordScope): ReadonlySet<string> {
  if (scope.cluster === undefined) return keys;
  return new Set([...keys].flatMap((k) => scopedKey(scope, k) ?? []));
}
