import { describe, expect, it } from 'vitest';
import { escapeSlack, fitLines } from '../../src/render/escape.js';
import { ACTION_IDS, type Block, type SlackMessage, slackDate, slackDates } from '../../src/render/slack-blocks.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { mergeHistory } from '../../src/domain/history.js';
import { membersOf } from '../../src/domain/members.js';
import { defaultFacts } from '../../src/domain/resolution.js';
import { renderResolution } from '../../src/render/slack-resolution.js';
import { renderResolvedRoot } from '../../src/render/slack-resolved.js';
import { renderChangeReply, renderEvidenceReply } from '../../src/render/slack-thread.js';
import { FIRST_REPLY_BUDGET } from '../../src/render/slack-evidence.js';
import { visibleLines } from '../../src/slack/terminal-slack.js';
import { FIXTURE_NOW, nodeIncident, rolloutIncident } from './incident-fixtures.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { NOW, snapshotOf } from '../detect/builders.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';

/** Every text string in a message's blocks, flattened. */
function texts(m: SlackMessage): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'text' && typeof x === 'string') out.push(x);
        else walk(x);
      }
    }
  };
  walk(m.blocks);
  return out;
}
const all = (m: SlackMessage): string => texts(m).join('\n');
/** The Slack date of an RFC 3339 time, as the renderers write it. */
const dated = (iso: string): string => slackDate(Date.parse(iso));

describe('escapeSlack', () => {
  it.each([
    ['plain text passes', 'postgres-2', 'postgres-2'],
    ['mention syntax is neutralised', '<!channel>', '&lt;!channel&gt;'],
    ['a code fence cannot be closed or opened', 'a ``` b `c`', 'a \u02cb\u02cb\u02cb b \u02cbc\u02cb'],
    ['ampersand first, so entities are not double-read', 'a&b<c>', 'a&amp;b&lt;c&gt;'],
    ['link syntax is neutralised', '<http://x|y>', '&lt;http://x|y&gt;'],
    // "Trojan Source": an override makes "fdp.exe" read as "exe.pdf"; overrides, isolates and marks are dropped
    ['bidi override and isolates are removed', 'a\u202Efdp.exe\u2066b\u2069\u200F', 'afdp.exeb'],
    ['control characters go, newline and tab stay', 'x\u0000\u001b[2J\u0085\u007f\ty\nz', 'x[2J\ty\nz'],
    ['zero-width spaces and the BOM go', '\uFEFFpo\u200Bd', 'pod'],
    ['the emoji joiner stays', '\u{1F469}\u200D\u{1F4BB}', '\u{1F469}\u200D\u{1F4BB}'],
  ])('%s', (_name, input, want) => {
    expect(escapeSlack(input)).toBe(want);
  });
});

describe('fitLines', () => {
  it.each([
    // all fit: unchanged
    [['a', 'b'], 100, 'a\nb'],
    // too many: whole lines kept, the rest counted
    [['aaaa', 'bbbb', 'cccc', 'dddd'], 26, 'aaaa\nbbbb\n...and 2 more'],
  ])('%j in %i chars', (lines, limit, want) => {
    const got = fitLines(lines, limit);
    expect(got).toBe(want);
    expect(got.length).toBeLessThanOrEqual(limit);
  });
  it('cuts a single line longer than the limit', () => {
    expect(fitLines(['x'.repeat(100), 'y'], 40).length).toBeLessThanOrEqual(40);
  });
});

describe('renderIncidentRoot', () => {
  const root = renderIncidentRoot(rolloutIncident());
  const text = all(root);

  it.each([
    ['title names driver and revision', 'ebs-csi-node revision 2'],
    ['status, severity and verdict in words', '*Open · SEV1 · Follows a node plugin rollout*'],
    ['verdict with counts, without its code', 'all on revision 2; 0 stuck on 36 nodes still on revision 1'],
    ['Do not drain and the rollback, prominently', ':no_entry: *Do not drain. Roll back to revision 1:*'],
    ['the rollback command', '`kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1`'],
    ['one line per stuck node, no table', '• `node-19`: platform/postgres-2'],
    ['where the rest is', 'in the thread'],
  ])('shows %s', (_name, want) => {
    expect(text).toContain(want);
  });

  it('says each thing once: no verdict code, no table, "Do not drain" once', () => {
    expect(text).not.toMatch(/FOLLOWS_ROLLOUT|```|\| plugin revision/);
    expect(text.match(/Do not drain/g)).toHaveLength(1);
  });

  it('has the four buttons carrying the incident key', () => {
    const actions = root.blocks.find((b) => b.type === 'actions') as Block & {
      elements: { action_id: string; value: string }[];
    };
    expect(actions.elements.map((e) => e.action_id)).toEqual([
      ACTION_IDS.ack,
      ACTION_IDS.mute1h,
      ACTION_IDS.mute4h,
      ACTION_IDS.resolve,
    ]);
    expect(actions.elements.every((e) => e.value === 'rollout/kube-system/ebs-csi-node@2')).toBe(true);
  });

  it('asks for confirmation before Resolve (Block Kit confirm), and only there', () => {
    const actions = root.blocks.find((b) => b.type === 'actions') as Block & {
      elements: { action_id: string; confirm?: { title: { text: string }; confirm: { text: string }; deny: object } }[];
    };
    const withConfirm = actions.elements.filter((e) => e.confirm).map((e) => e.action_id);
    expect(withConfirm).toEqual([ACTION_IDS.resolve]);
    const c = actions.elements.find((e) => e.action_id === ACTION_IDS.resolve)?.confirm;
    expect(c).toMatchObject({ title: { text: 'Resolve this incident?' }, confirm: { text: 'Resolve' } });
    expect(c?.deny).toBeDefined();
  });

  it('shows ack and mute state, and drops buttons and drain advice once resolved', () => {
    const at = Date.parse('2026-11-30T09:20:00Z');
    const acked = all(
      renderIncidentRoot(rolloutIncident(), { ack: { user: 'U123ABC', at }, muteUntil: at + 3600_000 }),
    );
    expect(acked).toContain(`Acknowledged by <@U123ABC> at ${dated('2026-11-30T09:20:00Z')}`);
    expect(acked).toContain(`Muted until ${dated('2026-11-30T10:20:00Z')}`);
    const resolved = renderIncidentRoot(rolloutIncident(), { resolvedAt: at, resolvedBy: 'U9' });
    expect(resolved.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(all(resolved)).not.toContain('Do not drain');
    expect(all(resolved)).toContain(`Resolved by <@U9> at ${dated('2026-11-30T09:20:00Z')}`);
  });

  it('escapes untrusted names everywhere', () => {
    const inc = nodeIncident('<!channel>&');
    const text2 = all(renderIncidentRoot(inc)) + root.text;
    expect(all(renderIncidentRoot(inc))).not.toContain('<!channel>');
    expect(all(renderIncidentRoot(inc))).toContain('&lt;!channel&gt;&amp;');
    expect(text2).not.toMatch(/<!channel>/);
  });

  it('stays within Slack limits with 600 nodes and says how many were left out', () => {
    const extra = Array.from({ length: 600 }, (_, i) => ({ node: `node-${1000 + i}`, pod: `search-extra-${i}` }));
    const big = renderIncidentRoot(rolloutIncident(extra));
    expect(big.blocks.length).toBeLessThanOrEqual(50);
    for (const t of texts(big)) expect(t.length).toBeLessThanOrEqual(3000);
    expect(all(big)).toMatch(/\.\.\.and \d+ more/);
    const ev = renderEvidenceReply(rolloutIncident(extra));
    for (const t of texts(ev)) expect(t.length).toBeLessThanOrEqual(3000);
  });
});

describe('renderEvidenceReply', () => {
  // The rollout incident through the real correlator: the thread states the explanations `rwx scan` prints, as
  // many as FIRST_REPLY_BUDGET holds, and names what it leaves out.
  const correlated = evaluate(ClusterIndex.fromSnapshot(snapshotOf(rolloutObjects())), { now: NOW }).incidents[0]!;
  const reply = renderEvidenceReply(correlated);
  const text = all(reply);
  // What to do comes first and always fits; each case: what it is, the words.
  it.each([
    ['the rollback command', 'kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1'],
    ['what the rollback restores', 'restores volumeMount kubelet-dir mountPropagation Bidirectional'],
    ['leave stuck pods alone', 'Leave stuck pods alone: the kubelet retries'],
    ['what cordoning costs', 'out of scheduling: if the other'],
    // Readiness of the pods that exist (the StatefulSet's and Deployment's desired counts are not read).
    [
      'symptom 1: postgres-2',
      'StatefulSet *postgres* (0 of 1 pod ready): postgres-2 (ContainerCreating 24m on node-19)',
    ],
    ['symptom 2: the backup CronJob with missed runs', 'CronJob *nightly-backup*: 2 scheduled runs missed'],
    ['symptom 3: search, 3 of its 5 pods ready', 'Deployment *search* (3 of 5 pods ready): search-7d9f8c6b5-d'],
    ['a stuck node, one line', '• `node-19` revision 2, plugin pod'],
  ])('has %s', (_name, want) => {
    expect(text).toContain(want);
  });

  it('holds what fits of the evidence, whole lines, and names the rest', () => {
    expect(visibleLines(reply).join('').length).toBeLessThanOrEqual(FIRST_REPLY_BUDGET);
    const explanations = (correlated.explanations ?? []).map((e) => slackDates(escapeSlack(e)));
    const shown = explanations.filter((e) => text.includes(e)).length;
    if (shown < explanations.length) expect(text).toMatch(/Not shown here: [^"]*explanations[^"]*`rwx scan` prints/);
    expect(text).not.toMatch(/Do not drain\.\* Stuck mounts follow/); // said once, in the first step
    expect(text).not.toContain('```');
  });
});

describe('a CronJob whose runs failed while one is in progress, in the thread', () => {
  // The finding's words come from src/domain/cron-runs.ts: the reasons (the messages are in the explanations, which
  // escape them) and the run in progress with its date as Slack's token.
  const inc = rolloutIncident();
  inc.cronJobs[0]!.jobs = [
    { name: 'nightly-backup-2911', active: 1, succeeded: 0, failed: 0, pods: [] },
    {
      name: 'nightly-backup-2910',
      active: 0,
      succeeded: 0,
      failed: 1,
      pods: [],
      failure: 'DeadlineExceeded: Job was active longer than specified deadline',
      failureReason: 'DeadlineExceeded',
    },
  ];
  inc.cronJobs[0]!.inProgress = { job: 'nightly-backup-2911', since: '2026-11-30T02:00:00Z', overdue: false };
  const text = all(renderEvidenceReply(inc));

  it('says what the runs failed with and that a run is in progress since when', () => {
    expect(text).toContain(
      `CronJob *nightly-backup*: 2 scheduled runs missed, last completed ${dated('2026-11-28T02:04:00Z')}; 1 failed: DeadlineExceeded; a run is in progress since ${dated('2026-11-30T02:00:00Z')}`,
    );
    expect(text).not.toContain('its run never started');
  });
});

describe('renderChangeReply', () => {
  it('names new nodes, and says nothing when nothing joined', () => {
    const before = membersOf(rolloutIncident());
    const reply = renderChangeReply(rolloutIncident([{ node: 'node-50', pod: 'search-new' }]), before);
    expect(all(reply!)).toContain('new node `node-50` (plugin revision 2): search/search-new');
    expect(renderChangeReply(rolloutIncident(), before)).toBeUndefined();
  });
});

describe('renderResolution', () => {
  it('one line per pod ever stuck, with its workload and node, and per CronJob', () => {
    const history = mergeHistory(undefined, rolloutIncident(), FIXTURE_NOW).history;
    const text = all(
      renderResolution(rolloutIncident(), history, {
        recovered: ['platform/postgres-2'],
        deleted: ['search/search-7d9f-abcde'],
        notRunning: ['search/search-7d9f-fghij'],
        cronJobs: [
          { cronJob: 'data/nightly-backup', completedSince: true, at: '2026-12-01T02:05:00Z' },
          { cronJob: 'data/other', completedSince: false },
        ],
      }),
    );
    expect(text).toContain(
      '*3 pods stuck during the incident:* 1 deleted or replaced, 1 not Running yet, 1 recovered on their own',
    );
    expect(text).toContain('`platform/postgres-2` (StatefulSet postgres on node-19): recovered on its own');
    expect(text).toContain(
      '`search/search-7d9f-abcde` (Deployment search on node-27): deleted or replaced during the incident: re-test it',
    );
    expect(text).toContain('`search/search-7d9f-fghij` (Deployment search on node-41): not Running yet');
    expect(text).toContain(
      `CronJob \`data/nightly-backup\` (2 scheduled runs missed, seen from ${dated('2026-11-30T09:15:00Z')}) has completed a run since (${dated('2026-12-01T02:05:00Z')})`,
    );
    expect(text).toContain('CronJob `data/other` has *not* completed a run since');
    expect(text).toContain('host mount namespace');
    expect(text).toContain('one node at a time: 4 nodes: node-19, node-27, node-33, node-41.');
  });

  it('a replaced pod of an incident held by its own settings (configuration layer) is checked by its replacement, not re-tested for a node', () => {
    const inc = {
      ...rolloutIncident(),
      location: { layer: 'configuration' as const, actor: 'the kubelet', evidence: [] },
    };
    const history = mergeHistory(undefined, inc, FIXTURE_NOW).history;
    const text = all(
      renderResolution(inc, history, { recovered: [], deleted: ['search/search-7d9f-abcde'], cronJobs: [] }),
    );
    expect(text).toContain('deleted or replaced during the incident: check that its replacement is Running');
    expect(text).not.toContain('proves nothing about its node');
  });

  it('with nothing observed, claims nothing: pods and CronJobs are "not checked"', () => {
    const history = mergeHistory(undefined, rolloutIncident(), FIXTURE_NOW).history;
    const text = all(renderResolution(rolloutIncident(), history, defaultFacts(history)));
    expect(text).toContain('4 not checked');
    expect(text).toContain(
      `CronJob \`data/nightly-backup\` (2 scheduled runs missed, seen from ${dated('2026-11-30T09:15:00Z')}): not checked`,
    );
    expect(text).not.toContain('recovered on its own');
  });

  it('escapes pod names and stays within Slack limits with hundreds of pods', () => {
    const many = rolloutIncident(
      Array.from({ length: 600 }, (_, i) => ({ node: `node-${100 + i}`, pod: `p${i}<!here>` })),
    );
    const history = mergeHistory(undefined, many, FIXTURE_NOW).history;
    const m = renderResolution(many, history, { recovered: history.pods.map((p) => p.pod), deleted: [], cronJobs: [] });
    expect(m.blocks.length).toBeLessThanOrEqual(50);
    for (const t of texts(m)) expect(t.length).toBeLessThanOrEqual(3000);
    expect(all(m)).not.toContain('<!here>');
    expect(all(m)).toContain('*499 pods stuck during the incident (and at least 105 more not kept in the record):*'); // CronJobs are kept first
  });
});

describe('renderResolvedRoot', () => {
  it('summarises the whole incident (peak, span, nodes, workloads), not its last partial state', () => {
    let history = mergeHistory(undefined, rolloutIncident(), FIXTURE_NOW).history;
    const last = rolloutIncident();
    last.pods = last.pods.slice(0, 1);
    last.nodes = last.nodes.slice(0, 1);
    last.cronJobs = [];
    last.summary = '1 of 2 nodes on revision 2 stuck';
    history = mergeHistory(history, last, FIXTURE_NOW + 60_000).history;
    const m = renderResolvedRoot(last, history, { resolvedAt: FIXTURE_NOW + 120_000 });
    const text = all(m);
    expect(text).not.toContain('1 of 2 nodes');
    expect(text).toContain(
      'At its worst: 4 stuck pods on 4 nodes, 1 CronJob with missed runs (4 pods stuck over the whole incident).',
    );
    // Cluster time: the first pod stuck since 06:45 (150 min before 09:15), last seen stuck at 09:15.
    expect(text).toContain(
      `Pods stuck from ${dated('2026-11-30T06:45:00Z')} to ${dated('2026-11-30T09:15:00Z')} (2h30m)`,
    );
    expect(text).toContain('*Nodes involved:* 4 nodes: node-19, node-27, node-33, node-41');
    expect(text).toContain('CronJob *nightly-backup*: 2 scheduled runs missed; nightly-backup-2911-x7k2p (on node-33)');
    expect(text).not.toContain('FOLLOWS_ROLLOUT'); // the peak in counts, said once
    expect(m.blocks.some((b) => b.type === 'actions')).toBe(false);
  });
});
