// The submit of the pipeline: the evaluation's incidents handed to the notifier as they were made, by the lease
// holder only (the one gate), with the node agents asked around it (agents.ts) and the fleet told afterwards.
// Nothing here changes an incident: test/architecture.test.ts checks that nothing after the evaluation can.
import type { Clock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Incident, Submitted } from '../domain/incident.js';
import { isRwxError } from '../errors.js';
import { redisDown } from '../store/ride-out.js';
import type { AskedNodes } from './agents.js';

/** The notifier as the pipeline uses it: incidents in (the full current set), what it kept open back; close. */
export interface NotifierPort {
  submit(incidents: readonly Incident[], now: number): Promise<Submitted | void>;
  close(): Promise<void>;
}

/**
 * Where the pipeline hands each evaluation. Called with the full current set; an incident absent from it has
 * cleared, unless the answer keeps it open (the keep-firing window, a fact of its record: src/notify/record.ts).
 */
export interface IncidentSink {
  submit(incidents: readonly Incident[], now: number): Promise<Submitted | void>;
}

/** Told what each submitted evaluation found, with the incidents kept open (a fleet's correlator). */
export type SubmitObserver = (incidents: readonly Incident[], index: ClusterIndex) => Promise<void>;

/** What the submit step is built from. */
export interface SubmitParts {
  notifier: NotifierPort;
  /** Whether this process holds the evaluator lease now; checked right before every submit. */
  active: () => Promise<boolean>;
  /** Whether any process holds it (a standby's evaluation is counted as such, not as a failure). */
  taken: () => Promise<boolean>;
  /** Counts each evaluation: recorded, a standby's, or failed. */
  evaluated: (outcome: boolean | 'standby') => void;
  /** The notifier's clock, when it is not the cluster's (the demo). */
  notifyClock?: Clock;
  asked?: AskedNodes;
  /** Told after each recorded evaluation; the cluster's cache is `index`. */
  observe?: SubmitObserver;
  index: ClusterIndex;
}

/** The sink the pipeline submits to (see the file comment). */
export function submitStep(p: SubmitParts): IncidentSink {
  return {
    submit: async (incidents, now) => {
      // A standby evaluates (its cache stays warm) but only the lease holder records; checked right before. With
      // nobody holding the lease (Redis down) nothing is recorded anywhere: an error, not a standby's evaluation.
      if (!(await p.active())) {
        p.evaluated((await p.taken()) ? 'standby' : false);
        return;
      }
      let submitted: Submitted | void;
      try {
        await p.asked?.before(incidents);
        submitted = await p.notifier.submit(incidents, p.notifyClock ? p.notifyClock.now() : now);
        p.evaluated(true);
      } catch (e) {
        p.evaluated(false);
        throw e;
      }
      const kept = submitted?.kept ?? [];
      p.asked?.after(kept);
      await p.observe?.([...incidents, ...kept], p.index);
      return submitted;
    },
  };
}

/** `fallback` when `e` only says Redis does not answer (the caller tries again later); anything else is thrown. */
export function whenRedisDown<T>(fallback: T): (e: unknown) => T {
  return (e) => {
    if (redisDown(e) || isRwxError(e, 'REDIS_UNREACHABLE')) return fallback;
    throw e;
  };
}
