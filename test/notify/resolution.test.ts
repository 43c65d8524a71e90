// Resolution content: the record remembers every member the incident ever had, so the resolved thread and root
// speak for the whole incident (which pods recovered on their own, which were deleted, whether the missed
// CronJob ran since), not for its last, partial state.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Incident } from '../../src/domain/incident.js';
import type { CronJob, Pod } from '../../src/domain/objects.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { RwxError } from '../../src/errors.js';
import { createIncidentActions } from '../../src/notify/actions.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { observeResolution } from '../../src/pipeline/resolution.js';
import { slackDate } from '../../src/render/slack-blocks.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { H, KEY, M, S, stageDeps } from './harness.js';

let clock: ManualClock;
let slack: MemorySlack;
let deps: StepDeps;
let index: ClusterIndex;
const text = (m: { blocks?: unknown[] } | undefined): string => JSON.stringify(m?.blocks ?? []);

/** The first version: all four symptoms; the replaced search pod carries a uid. */
function firstVersion(): Incident {
  const i = rolloutIncident();
  i.pods[1]!.pod.uid = 'uid-abcde-old';
  return i;
}

/** A later, partial version: only postgres-2 is still stuck, the CronJob has left (its pod ran). */
function lastVersion(): Incident {
  const i = rolloutIncident();
  i.pods = i.pods.filter((p) => p.pod.name === 'postgres-2');
  i.nodes = i.nodes.filter((n) => n.node === 'node-19');
  i.workloads = i.workloads.filter((w) => w.name === 'postgres');
  i.cronJobs = [];
  i.summary = 'FOLLOWS_ROLLOUT: 1 of 2 nodes on revision 2 have stuck mounts, 0 of 38 on revision 1; 1 stuck pod';
  return i;
}

const pod = (ns: string, name: string, uid: string, phase: string): Pod =>
  ({ metadata: { namespace: ns, name, uid }, status: { phase } }) as Pod;
const cronJob = (lastSuccessfulTime: string): CronJob =>
  ({
    metadata: { namespace: 'data', name: 'nightly-backup', uid: 'cj' },
    spec: { schedule: '0 2 * * *' },
    status: { lastSuccessfulTime },
  }) as CronJob;

async function submit(incidents: Incident[]): Promise<void> {
  await recordEvaluation(
    { store: deps.store, channel: 'C1', groupWait: DEFAULT_TIMERS.groupWait, observe: observeResolution(index) },
    incidents,
    clock.now(),
  );
}

beforeEach(() => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  deps = stageDeps(clock, slack);
  index = ClusterIndex.fromSnapshot(emptySnapshot());
});

/** Posts the first version, then records the partial one (the root is edited after group_interval). */
async function openAndShrink(): Promise<void> {
  await submit([firstVersion()]);
  clock.advance(30 * S);
  await processIncident(deps, KEY);
  clock.advance(5 * M);
  await submit([lastVersion()]);
  await processIncident(deps, KEY);
}

describe('resolution of an incident whose members came and went', () => {
  it('the thread reply covers every pod ever stuck and the CronJob that left; the root summarises the whole incident', async () => {
    await openAndShrink();
    // What the cache says at recovery: postgres-2 and one search pod ran on their own (same uid), the other
    // search pod was replaced (new uid), the backup's run completed after the incident began.
    index.upsert('pods', pod('platform', 'postgres-2', 'uid-pg', 'Running'));
    index.upsert('pods', pod('search', 'search-7d9f-abcde', 'uid-abcde-new', 'Running'));
    index.upsert('pods', pod('search', 'search-7d9f-fghij', 'uid-fghij', 'Running'));
    index.upsert('cronJobs', cronJob('2026-11-30T10:05:00Z'));
    clock.advance(10 * M);
    await submit([]);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['resolve'] });

    const root = slack.roots()[0]!;
    const reply = text(slack.replies(root.ts).at(-1));
    expect(reply).toMatch(/`platform\/postgres-2`[^\\]*recovered on its own/);
    expect(reply).toMatch(/`search\/search-7d9f-fghij`[^\\]*recovered on its own/);
    expect(reply).toMatch(/`search\/search-7d9f-abcde`[^\\]*deleted or replaced[^\\]*re-test it/);
    // Its Job's pod was deleted with the finished Job: gone, so it is not claimed to have recovered.
    expect(reply).toMatch(/`data\/nightly-backup-2911-x7k2p`[^\\]*deleted or replaced/);
    expect(reply).toMatch(
      /CronJob `data\/nightly-backup`[^\\]*has completed a run since \(<!date[^|]*\|2026-11-30 10:05 UTC>\)/,
    );

    const rootText = text(root);
    expect(rootText).not.toContain('1 of 2 nodes'); // the stale last state is gone...
    expect(rootText).toContain('4 stuck pods on 4 nodes'); // ...replaced by the peak
    for (const n of ['node-19', 'node-27', 'node-33', 'node-41']) expect(rootText).toContain(n);
    expect(rootText).toContain('nightly-backup');
    expect(root.blocks?.some((b) => b.type === 'actions')).toBe(false);
    // The record stays the source of truth: the history is in it.
    const r = await deps.store.get(KEY);
    expect(r?.observed.history.pods.map((p) => p.pod).sort()).toEqual([
      'data/nightly-backup-2911-x7k2p',
      'platform/postgres-2',
      'search/search-7d9f-abcde',
      'search/search-7d9f-fghij',
    ]);
  });

  it('says when a CronJob has not completed a run since, and a pod that is still not Running', async () => {
    await openAndShrink();
    index.upsert('pods', pod('platform', 'postgres-2', 'uid-pg', 'Pending'));
    index.upsert('cronJobs', cronJob('2026-11-28T02:04:00Z')); // unchanged since it was first seen
    await submit([]);
    await processIncident(deps, KEY);
    const reply = text(slack.replies(slack.roots()[0]!.ts).at(-1));
    expect(reply).toMatch(/CronJob `data\/nightly-backup`[^\\]*has \*not\* completed a run since/);
    expect(reply).toMatch(/`platform\/postgres-2`[^\\]*not Running yet/);
  });

  it('a manual Resolve reports on every member too, and a second click changes nothing', async () => {
    await openAndShrink();
    index.upsert('pods', pod('search', 'search-7d9f-fghij', 'uid-fghij', 'Running'));
    const actions = createIncidentActions({ ...deps, observe: observeResolution(index) });
    expect((await actions.resolve(KEY, 'U1ALICE', clock.now())).status).toBe('done');
    expect((await actions.resolve(KEY, 'U1ALICE', clock.now())).status).toBe('already');
    const replies = slack.replies(slack.roots()[0]!.ts).filter((m) => m.text.startsWith('Resolved'));
    expect(replies).toHaveLength(1);
    expect(text(replies[0])).toMatch(/`search\/search-7d9f-fghij`[^\\]*recovered on its own/);
    expect(text(slack.roots()[0])).toContain('4 stuck pods on 4 nodes');
  });

  it('a failed root edit after the resolution reply is retried without a second reply', async () => {
    await openAndShrink();
    await submit([]);
    slack.failNext('update', new RwxError('SLACK_RATE_LIMITED', 'rate limited', { retryAfterSeconds: 1 }));
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_RATE_LIMITED' });
    await processIncident(deps, KEY);
    expect(slack.replies(slack.roots()[0]!.ts).filter((m) => m.text.startsWith('Resolved'))).toHaveLength(1);
    expect(text(slack.roots()[0])).toContain('Resolved');
    clock.advance(M); // closed once the keep-firing window after the resolution is over
    await processIncident(deps, KEY);
    expect(await deps.store.listOpen()).toEqual([]);
  });
});

describe('follow-up of the CronJobs a resolution said had not run', () => {
  const followUps = (): string[] =>
    slack
      .replies(slack.roots()[0]!.ts)
      .filter((m) => String(m.metadata?.event_payload.reply).startsWith('follow-up:'))
      .map((m) => text(m));

  /** Opens the incident and resolves it while the backup has still not run since it was first seen. */
  async function resolveBeforeTheBackupRan(): Promise<void> {
    await openAndShrink();
    index.upsert('cronJobs', cronJob('2026-11-28T02:04:00Z'));
    await submit([]);
    // Followed until its next scheduled run (02:00 daily) plus two hours for the run itself.
    const until = Date.parse('2026-12-01T04:00:00Z');
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'wait', until, steps: ['resolve'] });
    expect(text(slack.replies(slack.roots()[0]!.ts).at(-1))).toContain(
      `next scheduled run ${slackDate('2026-12-01T02:00:00Z')}; this thread will say when one completes`,
    );
  }

  it('replies once when the backup completes a run, then closes the record', async () => {
    await resolveBeforeTheBackupRan();
    expect(await deps.store.listOpen()).toEqual([KEY]);
    // Evaluations while nothing changed write nothing and start no job.
    clock.advance(M);
    expect(
      await recordEvaluation(
        { store: deps.store, channel: 'C1', groupWait: 0, observe: observeResolution(index) },
        [],
        clock.now(),
      ),
    ).toEqual({ jobs: [], kept: [] });
    // The backup runs.
    clock.advance(2 * H);
    index.upsert('cronJobs', cronJob('2026-11-30T12:10:00Z'));
    expect(
      await recordEvaluation(
        { store: deps.store, channel: 'C1', groupWait: 0, observe: observeResolution(index) },
        [],
        clock.now(),
      ),
    ).toEqual({ jobs: [{ key: KEY, delayMs: 0 }], kept: [] });
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'done', steps: ['follow-up', 'close'] });
    expect(followUps()).toHaveLength(1);
    expect(followUps()[0]).toMatch(
      /CronJob `data\/nightly-backup` has completed a run since the resolution \(<!date[^|]*\|2026-11-30 12:10 UTC>\)/,
    );
    expect(await deps.store.listOpen()).toEqual([]);
    // A stale job or evaluation afterwards says nothing more.
    await submit([]);
    await processIncident(deps, KEY);
    expect(followUps()).toHaveLength(1);
  });

  it('says so when the backup has still not run when the wait is over, then stops following it', async () => {
    await resolveBeforeTheBackupRan();
    clock.set(Date.parse('2026-12-01T03:59:00Z'));
    expect(await processIncident(deps, KEY)).toMatchObject({ kind: 'wait', steps: [] });
    clock.advance(M);
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'done', steps: ['follow-up', 'close'] });
    expect(followUps()).toHaveLength(1);
    expect(followUps()[0]).toMatch(
      /1 CronJob without a completed run by .*CronJob `data\/nightly-backup` has still \*not\* completed a run since the resolution/,
    );
    expect(await deps.store.listOpen()).toEqual([]);
  });

  it('a CronJob deleted while awaited is reported as gone', async () => {
    await resolveBeforeTheBackupRan();
    index.remove('cronJobs', cronJob('2026-11-28T02:04:00Z'));
    await submit([]);
    await processIncident(deps, KEY);
    expect(followUps()[0]).toContain('no longer exists');
  });

  it('a crash after Slack accepted the follow-up never makes a second copy', async () => {
    await resolveBeforeTheBackupRan();
    index.upsert('cronJobs', cronJob('2026-11-30T12:10:00Z'));
    await submit([]);
    const post = slack.postMessage.bind(slack);
    let crash = true;
    slack.postMessage = async (a) => {
      const res = await post(a);
      if (crash && String(a.metadata?.event_payload.reply).startsWith('follow-up:'))
        throw new RwxError('SLACK_API', 'connection reset', { retryable: true });
      return res;
    };
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    crash = false;
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['follow-up'] }); // closed after the window
    expect(followUps()).toHaveLength(1);
  });

  it('after a manual Resolve while the fault still fires: silent until it clears, then the same follow-up', async () => {
    await openAndShrink();
    index.upsert('cronJobs', cronJob('2026-11-28T02:04:00Z'));
    const actions = createIncidentActions({ ...deps, observe: observeResolution(index) });
    expect((await actions.resolve(KEY, 'U1ALICE', clock.now())).status).toBe('done');
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'done', steps: [] });
    await submit([lastVersion()]);
    index.upsert('cronJobs', cronJob('2026-11-30T12:10:00Z'));
    await submit([lastVersion()]);
    expect(followUps()).toHaveLength(0);
    await submit([]); // cleared
    await processIncident(deps, KEY);
    await submit([]); // the evaluator now sees the completed run
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'done', steps: ['follow-up', 'close'] });
    expect(followUps()).toHaveLength(1);
  });
});
