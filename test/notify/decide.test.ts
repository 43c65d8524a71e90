// decide(): every phase and what moves it on, as a table; one line says why for each case.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMERS, type Step, decide } from '../../src/notify/decide.js';
import { stateHash } from '../../src/notify/state.js';
import type { IncidentRecord, Lifecycle } from '../../src/store/record.js';
import { H, M, S, record } from './harness.js';

const T = 1_000_000;
const thread = (over: Partial<{ hash: string; at: number; stale: number }> = {}) => ({
  ts: '1.1',
  sent: { hash: over.hash ?? 'current', at: over.at ?? T, ...(over.stale ? { stale: over.stale } : {}) },
});
const open: Lifecycle = { phase: 'open', thread: thread() };
const cleared = { cleared: { at: T + M } };
const resolution = { at: T + M };
const following = (until: number): Lifecycle => ({
  phase: 'following-up',
  threadTs: '1.1',
  resolution,
  awaiting: { cronJobs: ['data/backup'], until },
});

/** A record at T in `lifecycle`; an open thread's sent hash "current" stands for the hash it shows now. */
function rec(lifecycle: Lifecycle, over: Partial<IncidentRecord> = {}, now = T): IncidentRecord {
  const r = record({ createdAt: T, lifecycle, ...over });
  if (lifecycle.phase !== 'open' || lifecycle.thread.sent.hash !== 'current') return r;
  return {
    ...r,
    lifecycle: {
      ...lifecycle,
      thread: { ...lifecycle.thread, sent: { ...lifecycle.thread.sent, hash: stateHash(r, now) } },
    },
  };
}
const observed = (over: Partial<IncidentRecord['observed']>) => ({ observed: { ...record().observed, ...over } });

describe('decide', () => {
  it.each<[string, IncidentRecord, number, Step]>([
    // a new incident lets members gather for group_wait
    ['pending waits for group_wait', rec({ phase: 'pending' }), T + 10 * S, { step: 'wait', until: T + 30 * S }],
    // group_wait is over: the root goes out
    ['pending posts after group_wait', rec({ phase: 'pending' }), T + 30 * S, { step: 'post-root' }],
    // it cleared before anything reached Slack: nothing to resolve
    ['pending and cleared: discard', rec({ phase: 'pending' }, observed(cleared)), T + M, { step: 'discard' }],
    // Resolve was pressed before the first post: record the resolution, post nothing
    [
      'pending and resolved by hand: resolve',
      rec({ phase: 'pending' }, { buttons: { resolved: { by: 'U1', at: T } } }),
      T + S,
      { step: 'resolve' },
    ],
    // a team channel's root links the incident channel's thread: it waits for it, looking every second
    [
      'team pending waits for the incident root',
      rec({ phase: 'pending' }, { parent: { key: 'k', channel: 'C0INC' } }),
      T + 30 * S,
      { step: 'wait', until: T + 31 * S },
    ],
    // the incident channel's root is in Slack: the team root goes out
    [
      'team pending posts once the incident root is in Slack',
      rec({ phase: 'pending' }, { parent: { key: 'k', channel: 'C0INC', threadTs: '1.1' } }),
      T + 30 * S,
      { step: 'post-root' },
    ],
    // the incident channel's root is late or failing: the team is told anyway, PARENT_WAIT_MS after group_wait
    [
      'team pending posts without the link after the wait',
      rec({ phase: 'pending' }, { parent: { key: 'k', channel: 'C0INC' } }),
      T + 60 * S,
      { step: 'post-root' },
    ],
    // a crash mid-post: resume at once (the group already waited), looking the root up first
    ['posting-root resumes at once', rec({ phase: 'posting-root', startedAt: T }), T + S, { step: 'post-root' }],
    // cleared while the root may be in Slack: find it before resolving (or forgetting) it
    [
      'posting-root and cleared: adopt the root',
      rec({ phase: 'posting-root', startedAt: T }, observed(cleared)),
      T + M,
      { step: 'adopt-root' },
    ],
    // the root is in Slack, its evidence is not: post it, muted or not
    [
      'posting-evidence posts the evidence, even muted',
      rec({ phase: 'posting-evidence', thread: thread() }, { buttons: { mute: { until: T + H, by: 'U1' } } }),
      T + M,
      { step: 'post-evidence' },
    ],
    // the first evidence reply left something out: the second reply goes next, muted or not
    [
      'open, the second evidence reply due: post it, even muted',
      rec({ phase: 'open', thread: { ...thread(), rest: {} } }, { buttons: { mute: { until: T + H, by: 'U1' } } }),
      T + M,
      { step: 'post-rest' },
    ],
    // posted: the thread goes on as any open thread
    [
      'open, the second evidence reply posted: wait for repeat_interval',
      rec({ phase: 'open', thread: { ...thread(), rest: { ts: '1.3' } } }),
      T + H,
      { step: 'wait', until: T + 4 * H },
    ],
    // nothing changed: remind after repeat_interval
    ['open and unchanged: wait for repeat_interval', rec(open), T + H, { step: 'wait', until: T + 4 * H }],
    ['open and unchanged after repeat_interval: repeat', rec(open), T + 4 * H, { step: 'repeat' }],
    // the incident changed: edit the root, but no sooner than group_interval after the last notification
    [
      'changed within group_interval: wait for it',
      rec({ phase: 'open', thread: thread({ hash: 'old' }) }),
      T + M,
      { step: 'wait', until: T + 5 * M },
    ],
    [
      'changed after group_interval: update',
      rec({ phase: 'open', thread: thread({ hash: 'old' }) }),
      T + 5 * M,
      { step: 'update' },
    ],
    // muted: hold every update until the mute ends
    [
      'muted: wait until the mute ends',
      rec({ phase: 'open', thread: thread({ hash: 'old' }) }, { buttons: { mute: { until: T + H, by: 'U1' } } }),
      T + 10 * M,
      { step: 'wait', until: T + H },
    ],
    // the mute ended: the root no longer says muted, so it is out of date
    ['mute over: update', rec(open, { buttons: { mute: { until: T + H, by: 'U1' } } }), T + H, { step: 'update' }],
    // the bot went blind: the root gets its stale line at once, muted or not, and before a change waits
    [
      'blind: the stale line, even muted',
      rec(open, { ...observed({ stale: T }), buttons: { mute: { until: T + H, by: 'U1' } } }),
      T + M,
      { step: 'stale' },
    ],
    // the stale line is not a change: once shown, the repeat timer is where it was (no update, no reply)
    [
      'stale line shown: wait for repeat_interval',
      rec({ phase: 'open', thread: thread({ stale: T }) }, observed({ stale: T })),
      T + M,
      { step: 'wait', until: T + 4 * H },
    ],
    // the bot sees again: the stale line goes at once
    [
      'seen again: remove the stale line',
      rec({ phase: 'open', thread: thread({ stale: T }) }),
      T + M,
      { step: 'stale' },
    ],
    // cleared after the root was posted: the resolution goes out, muted or not
    [
      'open and cleared: resolve, even when muted',
      rec(open, { ...observed(cleared), buttons: { mute: { until: T + H, by: 'U1' } } }),
      T + 2 * M,
      { step: 'resolve' },
    ],
    // a Resolve click whose own step failed: the next job finishes it
    [
      'open and resolved by hand: resolve',
      rec(open, { buttons: { resolved: { by: 'U1', at: T } } }),
      T + M,
      { step: 'resolve' },
    ],
    // resolved by a person while the cluster still reports it: silent
    [
      'resolved by hand, still firing: nothing',
      rec({ phase: 'resolved', threadTs: '1.1', resolution: { at: T, by: 'U1' } }),
      T + 9 * H,
      { step: 'none' },
    ],
    // resolved, and nothing left to say once it cleared: close the record once the window after the resolution
    // is over (until then a recurrence reopens the thread)
    [
      'resolved and cleared: close',
      rec({ phase: 'resolved', threadTs: '1.1', resolution }, observed(cleared)),
      T + 9 * H,
      { step: 'close' },
    ],
    [
      'resolved and cleared, within the keep-firing window: wait for its end',
      rec({ phase: 'resolved', threadTs: '1.1', resolution }, observed(cleared)),
      T + M + 10 * S,
      { step: 'wait', until: T + M + DEFAULT_TIMERS.keepFiring },
    ],
    // a person's Resolve is final: closed at once once it cleared
    [
      'resolved by hand and cleared: close at once',
      rec({ phase: 'resolved', threadTs: '1.1', resolution: { at: T + M, by: 'U1' } }, observed(cleared)),
      T + M + 10 * S,
      { step: 'close' },
    ],
    // resolved automatically and firing again: the evaluator says it came back in time (record.ts reopens)
    [
      'resolved, firing again: reopen',
      rec({ phase: 'resolved', threadTs: '1.1', resolution }),
      T + M + 30 * S,
      { step: 'reopen' },
    ],
    // a CronJob the resolution awaits completed a run: say so now
    [
      'following-up, an awaited CronJob done: follow up',
      rec(following(T + 26 * H), observed({ ...cleared, cronJobsDone: [{ cronJob: 'data/backup', at: 'x' }] })),
      T + H,
      { step: 'follow-up' },
    ],
    // a CronJob seen done that is no longer awaited (already followed up) says nothing
    [
      'following-up, only a stale done CronJob: wait',
      rec(following(T + 26 * H), observed({ ...cleared, cronJobsDone: [{ cronJob: 'data/other' }] })),
      T + H,
      { step: 'wait', until: T + 26 * H },
    ],
    // the wait is over and it still has not run: say that instead
    [
      'following-up, the wait is over: follow up',
      rec(following(T + 26 * H), observed(cleared)),
      T + 26 * H,
      { step: 'follow-up' },
    ],
    // resolved by hand while it still fires: no follow-up until it clears
    [
      'following-up after a Resolve, still firing: nothing',
      rec({ ...following(T + H), resolution: { at: T + M, by: 'U1' } } as Lifecycle),
      T + 2 * H,
      { step: 'none' },
    ],
    // resolved automatically, the backup still awaited, and it fires again: the same incident, reopened
    ['following-up, firing again: reopen', rec(following(T + H)), T + 2 * H, { step: 'reopen' }],
    // closed: the record only waits to expire
    ['closed: nothing', rec({ phase: 'closed', resolution }, observed(cleared)), T + H, { step: 'none' }],
  ])('%s', (_name, r, now, want) => {
    expect(decide(r, now, DEFAULT_TIMERS)).toEqual(want);
  });

  it('defaults are Alertmanager’s 30s / 5m / 4h, kept firing for 60s', () => {
    expect(DEFAULT_TIMERS).toEqual({ groupWait: 30 * S, groupInterval: 5 * M, repeatInterval: 4 * H, keepFiring: M });
  });
});
