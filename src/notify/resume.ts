// Resuming this replica's own interrupted work at start-up. A process killed in the middle of a step (kill -9, an
// OOM, a node lost) leaves the incident's lock held until its TTL and its BullMQ job active until BullMQ's stalled
// sweep notices the dead worker (about 30-50 s), and every change to that incident waits behind both; killed after
// the step released the incident lock but before BullMQ moved the job on, it leaves the job alone, as long. A
// restarted replica knows which of them were its own: its locks name the replica (the pod name: a container
// restarted in place keeps it) and the incarnation (one per notifier), and so does its BullMQ worker, whose name
// BullMQ writes on every job it takes (the job's `processedBy`; the job lock's own token is the worker's random id,
// which names nobody). A lock or a job naming this replica and an incarnation that is no longer alive is its
// predecessor's. It breaks those locks, moves those jobs, and those of the incidents whose lock it broke, back to
// wait (or enqueues them afresh), and the steps resume from the record: a post that may be in Slack is looked up by
// its metadata before it is repeated (steps/step.ts), so resuming never posts twice.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Job, Queue } from 'bullmq';
import { lockOwner } from '../store/incident-store.js';
import type { IncidentStore } from '../store/incident-store.js';

/** Incarnations of notifiers alive in this process: their locks are never a predecessor's. */
const alive = new Set<string>();

/** One notifier's lock identity: the replica (stable across restarts of the same pod) and this incarnation. */
export interface LockIdentity {
  replica: string;
  incarnation: string;
  /** What the lock tokens name: `<replica>#<incarnation>`. */
  owner: string;
  /** This incarnation stops: its locks may be broken by the next one. */
  retire(): void;
}

/**
 * A new incarnation of `replica`. Default: host name and process id, which a container restarted in place keeps
 * (the pod name, and PID 1 for the image's `node` entry point), while two processes on one machine differ.
 */
export function lockIdentity(replica = `${hostname()}/${process.pid}`): LockIdentity {
  const safe = replica.replaceAll('#', '_');
  const incarnation = `${process.pid}.${randomBytes(4).toString('hex')}`;
  alive.add(incarnation);
  return { replica: safe, incarnation, owner: `${safe}#${incarnation}`, retire: () => alive.delete(incarnation) };
}

/** Whether `owner` (a lock token's, or the worker name on a job) is an earlier incarnation of `self`'s replica that is not alive here. */
export function isPredecessors(owner: string | undefined, self: LockIdentity): boolean {
  const sep = owner?.lastIndexOf('#') ?? -1;
  if (!owner || sep <= 0) return false;
  const incarnation = owner.slice(sep + 1);
  return owner.slice(0, sep) === self.replica && incarnation !== self.incarnation && !alive.has(incarnation);
}

/** What resume needs. */
export interface ResumeDeps {
  store: Pick<IncidentStore, 'listOpen' | 'lockToken' | 'unlock'>;
  queue: Pick<Queue<{ key: string }>, 'getActive'>;
  enqueue(key: string): Promise<void>;
}

/**
 * Breaks the predecessor's incident locks and restarts its work now; returns the keys resumed. An active job is
 * the dead worker's when BullMQ says the predecessor took it (processedBy), or, taken by a version that did not
 * name its worker, when it is of an incident whose lock the predecessor held (no live worker runs a step without
 * it). Such a job is moved back to wait ("0": whoever holds the job's lock, it is gone) rather than left to the
 * stalled sweep; an incident whose lock was broken with no job active gets a job afresh.
 */
export async function resumeInterrupted(deps: ResumeDeps, self: LockIdentity): Promise<string[]> {
  const resumed = new Set<string>();
  for (const key of await deps.store.listOpen()) {
    const token = await deps.store.lockToken(key);
    if (!token || !isPredecessors(lockOwner(token), self)) continue;
    await deps.store.unlock(key, token);
    resumed.add(key);
  }
  const moved = new Set<string>();
  for (const job of await deps.queue.getActive()) {
    if (!strandedBy(job, resumed, self)) continue;
    await job.moveToWait('0');
    resumed.add(job.data.key);
    moved.add(job.data.key);
  }
  for (const key of resumed) if (!moved.has(key)) await deps.enqueue(key);
  return [...resumed];
}

// Whether an active job was left by the predecessor (see resumeInterrupted).
function strandedBy(job: Job<{ key: string }>, locked: ReadonlySet<string>, self: LockIdentity): boolean {
  return job.processedBy ? isPredecessors(job.processedBy, self) : locked.has(job.data.key);
}
