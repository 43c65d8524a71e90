// The change hash covers what a notification says, not how it is worded: a release that rewords the root (or the
// correlator's summary) leaves every open thread alone; a new member, a verdict or a count edits it.
import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/domain/incident.js';
import { notifiableHash } from '../../src/notify/notifiable.js';
import { stateHash } from '../../src/notify/state.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { renderEvidenceReply } from '../../src/render/slack-thread.js';
import { rolloutIncident } from '../render/incident-fixtures.js';
import { record } from './harness.js';

const root = (i: Incident): string => JSON.stringify(renderIncidentRoot(i).blocks);
const evidence = (i: Incident): string => JSON.stringify(renderEvidenceReply(i).blocks);

/** The fixture with one change applied. */
function changed(f: (i: Incident) => void, start: () => Incident = rolloutIncident): Incident {
  const i = start();
  f(i);
  return i;
}

/** The fixture as a node incident: its root shows the next steps (a rollout's shows "Do not drain"). */
function nodeIncident(): Incident {
  const i = rolloutIncident();
  delete i.rollout;
  return { ...i, key: 'node/node-19', verdict: 'FOLLOWS_NODE', node: 'node-19', nextSteps: ['Cordon node-19.'] };
}

describe('notifiableHash', () => {
  it.each<[string, () => Incident, (i: Incident) => void, (i: Incident) => string]>([
    // the correlator words the summary and title differently in a new release
    [
      'summary and title reworded',
      rolloutIncident,
      (i) => {
        i.summary = `Reworded: ${i.summary}`;
        i.title = `${i.title} (reworded)`;
      },
      root,
    ],
    // the next steps and explanations are text the advice builds from the same facts
    [
      'next steps and explanations reworded',
      nodeIncident,
      (i) => {
        i.nextSteps = ['Cordon the node named node-19.'];
        i.explanations = ['A new way to say it.'];
      },
      root,
    ],
    // ages move on by themselves; they are never a reason to edit
    [
      'ages moved on',
      rolloutIncident,
      (i) => {
        i.pods.forEach((p) => (p.stuckSeconds += 600));
        i.nodes.forEach((n) => n.plugin && (n.plugin.ageSeconds = (n.plugin.ageSeconds ?? 0) + 600));
      },
      evidence, // the root shows no ages; the thread's node lines do
    ],
    // events (counts, messages) are evidence in the thread, not the root
    [
      'events counted again',
      rolloutIncident,
      (i) => i.pods.forEach((p) => p.events.forEach((e) => (e.count += 5))),
      evidence,
    ],
  ])('unchanged when %s, though the rendered text changes', (_name, start, f, render) => {
    const i = changed(f, start);
    expect(notifiableHash(i)).toBe(notifiableHash(start()));
    expect(render(i)).not.toBe(render(start()));
  });

  it.each<[string, Incident]>([
    // a new node with a stuck pod joins
    ['a member joins', rolloutIncident([{ node: 'node-50', pod: 'search-new' }])],
    // the verdict changes
    ['the verdict changes', changed((i) => (i.verdict = 'UNEXPLAINED'))],
    // the rollout's 2x2 counts move
    ['the counts change', changed((i) => i.rollout && (i.rollout.counts.oldStuck += 1))],
    // the rollout reaches another node
    ['the rollout moves on', changed((i) => i.rollout && (i.rollout.updatedNodes += 1))],
    // a node's plugin pod is replaced by another revision
    ['a plugin revision changes', changed((i) => i.nodes[0]?.plugin && (i.nodes[0].plugin.revision = 3))],
    // the CronJob misses another run
    ['a CronJob misses one more run', changed((i) => i.cronJobs[0] && (i.cronJobs[0].missedRuns += 1))],
  ])('changes when %s', (_name, i) => {
    expect(notifiableHash(i)).not.toBe(notifiableHash(rolloutIncident()));
  });
});

describe('stateHash', () => {
  it('also covers what the buttons show: an ack, a mute until it ends', () => {
    const r = record();
    const acked = record({ buttons: { ack: { user: 'U1', at: 1 } } });
    const muted = record({ buttons: { mute: { until: 2000, by: 'U1' } } });
    expect(stateHash(acked, 0)).not.toBe(stateHash(r, 0));
    expect(stateHash(muted, 1000)).not.toBe(stateHash(r, 1000));
    expect(stateHash(muted, 2000)).toBe(stateHash(r, 2000)); // the mute is over: the root no longer shows it
  });
});
