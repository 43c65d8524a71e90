// The message an engineer reads on a phone: the fallback text a notification shows, the short root, collapsed
// node lists, Slack dates, events grouped across pods, backticks that cannot break code, link buttons and the
// user group mention.
import { describe, expect, it } from 'vitest';
import { mergeHistory } from '../../src/domain/history.js';
import { membersOf } from '../../src/domain/members.js';
import { defaultFacts } from '../../src/domain/resolution.js';
import { groupEvents, messageShape } from '../../src/render/event-groups.js';
import { type SlackMessage, slackDate } from '../../src/render/slack-blocks.js';
import { renderCronJobFollowUp } from '../../src/render/slack-follow-up.js';
import { ROOT_NODE_LINES, renderIncidentRoot } from '../../src/render/slack-incident.js';
import { FIRST_REPLY_BUDGET } from '../../src/render/slack-evidence.js';
import { visibleLines } from '../../src/slack/terminal-slack.js';
import { nodeList } from '../../src/render/slack-members.js';
import { renderResolution } from '../../src/render/slack-resolution.js';
import { renderResolvedRoot } from '../../src/render/slack-resolved.js';
import { renderChangeReply, renderEvidenceReply, renderRepeatReply } from '../../src/render/slack-thread.js';
import { blockKitProblems } from '../support/block-kit.js';
import { FIXTURE_NOW, nodeIncident, rolloutIncident } from './incident-fixtures.js';

const blocksText = (m: SlackMessage): string => JSON.stringify(m.blocks);
const extraNodes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ node: `node-${100 + i}`, pod: `search-extra-${i}` }));

describe('fallback text (what a push notification shows)', () => {
  const inc = rolloutIncident();
  const history = mergeHistory(undefined, inc, FIXTURE_NOW).history;
  const bigger = rolloutIncident([{ node: 'node-50', pod: 'search-new' }]);
  // Each case: the message, how its fallback text must begin.
  it.each([
    ['the root', renderIncidentRoot(inc), 'Do not drain. Follows a node plugin rollout. '],
    ['the evidence reply', renderEvidenceReply(inc), 'Do not drain. Follows a node plugin rollout. Next steps'],
    [
      'a change reply',
      renderChangeReply(bigger, membersOf(inc))!,
      'Do not drain. Follows a node plugin rollout. Changed',
    ],
    ['the reminder', renderRepeatReply(inc, FIXTURE_NOW, FIXTURE_NOW + 4 * 3600_000), 'Do not drain. Follows a node'],
    ['a node incident root', renderIncidentRoot(nodeIncident()), 'Follows one node. '],
    ['the resolution', renderResolution(inc, history, defaultFacts(history)), 'Resolved (follows a node plugin'],
    ['the resolved root', renderResolvedRoot(inc, history, { resolvedAt: FIXTURE_NOW }), 'Resolved (follows a node'],
    ['the follow-up', renderCronJobFollowUp(inc, [], ['data/nightly-backup'], FIXTURE_NOW, FIXTURE_NOW), 'Resolved ('],
  ])('%s leads with the verdict', (_name, message, start) => {
    expect(message.text.startsWith(start)).toBe(true);
    expect(blockKitProblems(message)).toEqual([]);
  });

  it('never says "Do not drain" once resolved, nor for a node fault', () => {
    expect(renderResolution(inc, history, defaultFacts(history)).text).not.toMatch(/do not drain/i);
    expect(renderIncidentRoot(nodeIncident()).text).not.toMatch(/do not drain/i);
  });
});

describe('the root is short; the thread has the rest', () => {
  const inc = rolloutIncident(extraNodes(36));
  const root = renderIncidentRoot(inc);
  const text = blocksText(root);

  it('title, status and verdict, the one action, a few node lines, buttons, a pointer to the thread: nothing else', () => {
    expect(root.blocks.map((b) => b.type)).toEqual([
      'header',
      'section', // status, severity, verdict and summary
      'section', // Do not drain and the rollback command
      'section', // the first stuck nodes, one line each
      'actions',
      'context', // the thread has the rest
    ]);
    expect(text).not.toContain('Affected workloads');
    expect(text).not.toContain('Leave stuck pods alone'); // the other steps are in the thread
  });

  it(`names ${ROOT_NODE_LINES} stuck nodes, one line each, and says how many more`, () => {
    const nodes = (root.blocks[3] as unknown as { text: { text: string } }).text.text;
    expect(nodes.split('\n').filter((l) => l.startsWith('• `node-'))).toHaveLength(ROOT_NODE_LINES);
    expect(nodes).toContain(`...and ${inc.nodes.length - ROOT_NODE_LINES} more`);
    expect(visibleLines(root).join('').length).toBeLessThanOrEqual(700);
  });

  it('the first reply has every step for now, node lines and the workloads, within its budget', () => {
    const reply = renderEvidenceReply(inc);
    const ev = blocksText(reply);
    inc.nextSteps
      .filter((s) => !s.startsWith('Verify'))
      .forEach((s, i) => expect(ev).toContain(`${i + 1}. ${s.slice(0, 40)}`));
    expect(ev).toContain('...and 30 more nodes'); // 40 stuck nodes: ten named
    expect(ev).toContain('Affected workloads');
    expect(visibleLines(reply).join('').length).toBeLessThanOrEqual(FIRST_REPLY_BUDGET);
  });

  it('the first reply that says, once, how to get proof from the nodes still fits its budget, the hint last', () => {
    const reply = renderEvidenceReply(inc, { proofHint: true });
    expect(visibleLines(reply).join('').length).toBeLessThanOrEqual(FIRST_REPLY_BUDGET);
    expect(JSON.stringify(reply.blocks.at(-1))).toContain('Proof from the nodes is opt-in');
    expect(blocksText(renderEvidenceReply(inc))).not.toContain('Proof from the nodes is opt-in');
  });

  it('a node incident leads with its first next step', () => {
    expect(blocksText(renderIncidentRoot(nodeIncident()))).toContain('*First:* Check node node-7');
  });
});

describe('nodeList: one way to show a list of nodes', () => {
  const names = (n: number, from = 12) => Array.from({ length: n }, (_, i) => `node-${from + i}`);
  it.each([
    [[], 'on revision 2', '0 nodes on revision 2'],
    [['node-3'], '', '1 node: node-3'],
    [['node-12', 'node-2', 'node-3'], '', '3 nodes: node-2, node-3, node-12'], // natural order
    [names(6), '', '6 nodes: node-12, node-13, node-14, node-15, node-16, node-17'], // six still in full
    [names(28), 'on revision 2', '28 nodes on revision 2: node-12 ... node-39'], // collapsed to first and last
    [['a<b', 'a<b'], '', '1 node: a&lt;b'], // escaped, and counted once
  ])('%j %s', (nodes, where, want) => {
    expect(nodeList(nodes, where)).toBe(want);
  });
});

describe('slackDate: one time format', () => {
  it.each([
    [Date.parse('2026-11-30T06:40:59.900Z'), '<!date^1796020859^{date_short_pretty} {time}|2026-11-30 06:40 UTC>'],
    ['2026-11-30T06:40:00Z', '<!date^1796020800^{date_short_pretty} {time}|2026-11-30 06:40 UTC>'], // RFC 3339
    ['not a time', 'unknown'],
    [undefined, 'unknown'],
  ])('%s', (at, want) => {
    expect(slackDate(at)).toBe(want);
  });

  it('is the only time format in every Slack message', () => {
    const inc = rolloutIncident();
    const history = mergeHistory(undefined, inc, FIXTURE_NOW).history;
    const all = [
      renderIncidentRoot(inc, { ack: { user: 'U1', at: FIXTURE_NOW } }),
      renderEvidenceReply(inc),
      renderResolution(inc, history, { ...defaultFacts(history), manual: { user: 'U1', at: FIXTURE_NOW } }),
      renderResolvedRoot(inc, history, { resolvedAt: FIXTURE_NOW }),
    ];
    const text = all.map(blocksText).join('\n');
    const bare = text.replace(/<!date\^\d+\^\{date_short_pretty\} \{time\}\|[^>]+>/g, '');
    expect(bare).not.toMatch(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d/);
    expect(text).toMatch(/<!date\^/);
  });
});

describe('events grouped across pods', () => {
  const ev = (pod: string, count: number, message: string, ageSeconds?: number) => ({
    pod,
    event: { object: `Pod/${pod}`, type: 'Warning', reason: 'FailedMount', count, message, ageSeconds },
  });
  const kubelet = (vol: string) =>
    `Unable to attach or mount volumes: unmounted volumes=[${vol}], unattached volumes=[], timed out waiting for the condition`;

  it('one group for the same message on many pods, whatever volumes they name', () => {
    const events = Array.from({ length: 12 }, (_, i) => ev(`ns/p${i}`, i < 6 ? 4 : 5, kubelet(`v${i}`), 60 + i));
    const [g, ...rest] = groupEvents(events);
    expect(rest).toEqual([]);
    expect(g).toMatchObject({ reason: 'FailedMount', count: 54, ageSeconds: 60 });
    expect(g!.pods).toHaveLength(12);
    expect(g!.message).toBe(messageShape(kubelet('x')));
  });

  it('keeps the exact message when every pod said the same, and different messages apart', () => {
    const groups = groupEvents([ev('a/1', 1, 'exit status 32'), ev('a/2', 2, 'exit status 32'), ev('a/3', 1, 'boom')]);
    expect(groups.map((g) => [g.message, g.count, g.pods.length])).toEqual([
      ['exit status 32', 3, 2],
      ['boom', 1, 1],
    ]);
  });

  it('the evidence reply says "FailedMount x54 on 12 pods"', () => {
    const inc = rolloutIncident(extraNodes(8));
    inc.pods.forEach((p, i) => {
      p.events = [{ ...p.events[0]!, count: i < 6 ? 4 : 5, message: kubelet(`data-${i}`) }];
    });
    expect(blocksText(renderEvidenceReply(inc))).toContain('Warning FailedMount x54 on 12 pods, latest 2m ago: ');
  });
});

describe('backticks in untrusted text', () => {
  it('cannot close or open a code block, wherever they appear', () => {
    const inc = rolloutIncident();
    inc.pods[0]!.events[0]!.message = 'mount failed: ```\n<!channel> `rm -rf` &';
    inc.rollout!.diff[0]!.text = 'args: ``` --x';
    inc.summary = 'summary with ``` fence';
    const messages = [renderEvidenceReply(inc), renderIncidentRoot(inc)];
    for (const m of messages) expect(blockKitProblems(m)).toEqual([]);
    expect(blocksText(messages[0]!)).toContain('mount failed: \u02cb\u02cb\u02cb');
  });
});

describe('link buttons and the user group mention', () => {
  const links = { runbook: 'https://runbooks.example.com/csi?a=1&b=2', dashboard: 'https://grafana.example.com/d/1' };
  it('adds Runbook and Dashboard link buttons after the incident buttons', () => {
    const root = renderIncidentRoot(rolloutIncident(), {}, { links });
    const actions = root.blocks.find((b) => b.type === 'actions') as unknown as {
      elements: { text: { text: string } }[];
    };
    expect(actions.elements.map((e) => e.text.text)).toEqual([
      'Acknowledge',
      'Mute 1h',
      'Mute 4h',
      'Resolve',
      'Runbook',
      'Dashboard',
    ]);
    expect(blocksText(root)).toContain(JSON.stringify(links.runbook));
    expect(blockKitProblems(root)).toEqual([]);
  });

  it('mentions the user group when asked (a new root), and only a real group id', () => {
    expect(blocksText(renderIncidentRoot(rolloutIncident(), {}, { mention: 'S0ONCALL' }))).toContain(
      '<!subteam^S0ONCALL>',
    );
    expect(renderIncidentRoot(rolloutIncident(), {}, { mention: 'S0ONCALL' }).text).toMatch(/<!subteam\^S0ONCALL>$/);
    expect(blocksText(renderIncidentRoot(rolloutIncident(), {}, { mention: '<!channel>' }))).not.toContain('subteam');
    expect(blocksText(renderIncidentRoot(rolloutIncident()))).not.toContain('subteam');
  });
});
