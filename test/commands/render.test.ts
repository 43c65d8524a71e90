import { describe, expect, it } from 'vitest';
import { renderHelp, renderUsage } from '../../src/commands/help.js';
import { type TextBlock, type CommandResponse } from '../../src/commands/message.js';
import { SLACK_BLOCK_LIMIT, SLACK_TEXT_LIMIT } from '../../src/render/escape.js';
import { countsLines, renderDrain, renderUnknownNode } from '../../src/commands/render-drain.js';
import { renderStatus, threadLink } from '../../src/commands/render-status.js';
import { MAX_INLINE_CLAIMS, renderTriage } from '../../src/commands/render-triage.js';
import { narrowReport } from '../../src/commands/scope.js';
import { claim, report, rolloutIncident } from './fixtures.js';

/** Every piece of text in a response, for escaping and limit checks. */
function texts(r: CommandResponse): string[] {
  const out = [r.text];
  for (const b of r.blocks ?? []) out.push(...blockTexts(b));
  return out;
}
function blockTexts(b: TextBlock): string[] {
  if (b.type === 'section' || b.type === 'header') return [b.text.text];
  if (b.type === 'context') return b.elements.map((e) => e.text);
  return [];
}
/** No raw < or > except Slack's own link/mention/date syntax we emit on purpose, and no bare & that is not an entity. */
function assertSafe(r: CommandResponse): void {
  for (const t of texts(r)) {
    const stripped = t
      .replace(/^> /gm, '')
      .replace(
        /<(https:\/\/[^\s<>|]+\|[^<>]*|#[CGD][A-Z0-9]+|@[UW][A-Z0-9]+|!subteam\^S[A-Z0-9]+|!date\^\d+\^[^|<>]+\|[^<>]+)>/g,
        '',
      );
    expect(stripped).not.toMatch(/[<>]/);
    expect(stripped).not.toMatch(/&(?!amp;|lt;|gt;)/);
  }
  expect((r.blocks ?? []).length).toBeLessThanOrEqual(SLACK_BLOCK_LIMIT);
  for (const b of r.blocks ?? [])
    for (const t of blockTexts(b)) expect(t.length).toBeLessThanOrEqual(b.type === 'header' ? 150 : SLACK_TEXT_LIMIT);
}

describe('help and usage', () => {
  it('help lists every command and is ephemeral', () => {
    const r = renderHelp().response;
    expect(r.response_type).toBe('ephemeral');
    for (const c of ['/rwx triage', '/rwx drain NODE', '/rwx status', '/rwx help']) expect(r.text).toContain(c);
    // How to get proof from the nodes is said here once, not in every incident root.
    expect(r.text).toContain('node agent');
    expect(r.text).toContain('docs/agent.md');
    assertSafe(r);
  });

  it.each([
    ['unknown subcommand "<!channel>"', '&lt;!channel&gt;'], // a mention cannot ping anyone
    ['"a&b" is not a valid namespace name', 'a&amp;b'], // ampersand escaped
    ['"<https://evil.example|click>" is not a valid node name', '&lt;https://evil.example|click&gt;'], // a link stays text
  ])('usage escapes %j', (error, shown) => {
    const r = renderUsage(error).response;
    expect(r.text).toContain(shown);
    expect(r.text).toContain('Usage:');
    assertSafe(r);
  });
});

describe('drain', () => {
  it('BLOCK shows the reason, the 2x2 counts and what to do instead', () => {
    const advice = {
      node: 'node-19',
      decision: 'BLOCK' as const,
      reason: 'stuck mounts on node-19 follow the ebs-csi-node rollout to revision 2',
      steps: [
        'Stop the drain.',
        'kubectl rollout undo daemonset/ebs-csi-node -n kube-system',
        'Leave stuck pods alone: the kubelet retries.',
      ],
    };
    const r = renderDrain(advice, [rolloutIncident()], false).response;
    expect(r.text).toContain(':no_entry: *BLOCK*');
    expect(r.text).toContain('5 of 40 nodes updated');
    expect(r.text).toContain('revision 2 (new): 4 with stuck mounts, 1 mounting fine');
    expect(r.text).toContain('revision 1 (previous): 0 with stuck mounts, 35 mounting fine');
    expect(r.text).toContain('*Do this instead*\n1. Stop the drain.');
    expect(r.response_type).toBe('ephemeral');
    assertSafe(r);
  });

  it.each([
    ['CAUTION', ':warning: *CAUTION*', '*Watch for*'], // stuck Terminating pods: the drain will hang
    ['OK', ':white_check_mark: *OK*', '*Notes*'], // OK with a one-line reason
  ] as const)('%s', (decision, mark, title) => {
    const r = renderDrain(
      { node: 'node-02', decision, reason: 'no stuck mounts on node-02', steps: ['x'] },
      [rolloutIncident()],
      true,
    ).response;
    expect(r.text).toContain(mark);
    expect(r.text).toContain(title);
    expect(r.text).not.toContain('revision 2 (new)'); // counts only for BLOCK
    expect(r.response_type).toBe('in_channel');
  });

  it('escapes a hostile reason and node', () => {
    const r = renderDrain(
      { node: 'n', decision: 'CAUTION', reason: 'pod <!here> & co', steps: ['<@U1>'] },
      [],
      false,
    ).response;
    expect(r.text).toContain('pod &lt;!here&gt; &amp; co');
    assertSafe(r);
  });

  it('unknown node is a clear message', () => {
    const r = renderUnknownNode('node-99', false).response;
    expect(r.text).toContain('There is no node `node-99` in the cluster');
  });

  it('countsLines says the 2x2 in words, one line per revision', () => {
    expect(countsLines(rolloutIncident().rollout!)).toEqual([
      '• revision 2 (new): 4 with stuck mounts, 1 mounting fine',
      '• revision 1 (previous): 0 with stuck mounts, 35 mounting fine',
    ]);
  });
});

describe('status', () => {
  const now = Date.parse('2026-11-30T09:15:00Z');
  it.each([
    [{ channel: 'C0INC', threadTs: '1764493200.000100' }, 'https://slack.com/archives/C0INC/p1764493200000100'], // archive link from channel + ts
    [{ permalink: 'https://acme.slack.com/archives/C0INC/p1' }, 'https://acme.slack.com/archives/C0INC/p1'], // permalink preferred
    [
      { permalink: 'https://evil.example/x', channel: 'C0INC', threadTs: '1.2' },
      'https://slack.com/archives/C0INC/p12',
    ], // non-Slack permalink ignored
    [{ channel: 'incidents', threadTs: '1.2' }, undefined], // a channel name cannot make a link
    [{ channel: 'C0INC', threadTs: '1.2>' }, undefined], // malformed ts
  ])('threadLink %j', (i, want) => expect(threadLink(i)).toBe(want));

  it('lists open incidents with verdict and link, newest first, escaped', () => {
    const r = renderStatus(
      [
        {
          key: 'a',
          title: 'node-19 <!channel>',
          verdict: 'FOLLOWS_NODE',
          channel: 'C0INC',
          threadTs: '1.1',
          openedAt: now - 3_600_000,
        },
        {
          key: 'b',
          title: 'ebs-csi-node revision 2',
          verdict: 'FOLLOWS_ROLLOUT',
          channel: 'C0INC',
          threadTs: '2.2',
          openedAt: now - 600_000,
          acknowledgedBy: 'U0ALICE',
          mutedUntil: now + 1_800_000,
        },
        { key: 'c', title: 'not posted', verdict: 'UNEXPLAINED', openedAt: now - 60_000 },
      ],
      now,
      false,
    ).response;
    expect(r.text.split('\n')).toEqual([
      '*3 open incidents*',
      '• not posted (not posted yet) · _unexplained_ · open 60s',
      "• <https://slack.com/archives/C0INC/p22|ebs-csi-node revision 2> · _follows a rollout_ · open 10m · ack'd by <@U0ALICE> · muted 30m more",
      '• <https://slack.com/archives/C0INC/p11|node-19 &lt;!channel&gt;> · _follows a node_ · open 1h',
    ]);
    assertSafe(r);
  });

  it('lists resolved incidents still waiting for a CronJob after the open ones', () => {
    const followed = {
      key: 'f',
      title: 'ebs <b>',
      verdict: 'FOLLOWS_ROLLOUT' as const,
      channel: 'C0INC',
      threadTs: '3.3',
      openedAt: now - 7_200_000,
      followingUp: { cronJobs: ['data/nightly-backup'], until: now + 5 * 3_600_000 },
    };
    expect(
      renderStatus(
        [followed, { key: 'c', title: 'open one', verdict: 'UNEXPLAINED', openedAt: now - 60_000 }],
        now,
        false,
      ).response.text.split('\n'),
    ).toEqual([
      '*1 open incident*; 1 resolved, waiting for a CronJob to complete a run',
      '• open one (not posted yet) · _unexplained_ · open 60s',
      '• <https://slack.com/archives/C0INC/p33|ebs &lt;b&gt;> · _resolved_ · waiting for CronJob data/nightly-backup to complete a run (5h more)',
    ]);
    const r = renderStatus([followed], now, false).response;
    expect(r.text.split('\n')[0]).toBe(
      ':large_green_circle: No open storage incidents; 1 resolved, waiting for a CronJob to complete a run',
    );
    assertSafe(r);
  });

  it('says so when nothing is open', () => {
    expect(renderStatus([], now, false).response.text).toContain('No open storage incidents');
  });

  it('UNKNOWN first while the bot cannot see the cluster: none recorded is not none, a list is as last recorded', () => {
    const blind = [{ kind: 'pods' as const, reason: 'API server unreachable: ECONNREFUSED', undecided: 'which pods' }];
    const none = renderStatus([], now, false, blind).response;
    assertSafe(none);
    expect(none.text).toMatch(/^:grey_question: \*UNKNOWN\*: no open storage incident is recorded, but the bot cannot/);
    expect(none.text).not.toContain('No open storage incidents');
    expect(none.text).toContain('pods (API server unreachable: ECONNREFUSED)');
    const one = renderStatus([{ key: 'k', title: 't', verdict: 'UNEXPLAINED' }], now, false, blind).response;
    expect(one.text.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^:grey_question: \*UNKNOWN\*: the bot cannot see the cluster now; the incidents below/),
      '*1 open incident*',
    ]);
  });

  it('stays within 50 blocks with many incidents', () => {
    const many = Array.from({ length: 120 }, (_, i) => ({
      key: `k${i}`,
      title: `t${i}`,
      verdict: 'UNEXPLAINED' as const,
    }));
    const r = renderStatus(many, now, false).response;
    assertSafe(r);
    expect(JSON.stringify(r.blocks)).toContain('…and 72 more');
  });
});

describe('triage', () => {
  const small = report([
    claim('platform', 'data-postgres-2', 'MOUNT_FAILED'),
    claim('data', 'backup', 'UNPUBLISH_STUCK', {
      evidence: {
        events: [],
        nodes: [],
        attachments: [],
        stages: [],
        holds: [],
        pods: [
          {
            namespace: 'data',
            name: 'backup-1',
            node: 'node-04',
            overdueSeconds: 600,
            finalizers: ['example.com/hold'],
          },
        ],
      },
    }),
    claim('search', 'index', 'OK'),
  ]);

  it('summary by phase, preflight, and each non-OK claim with evidence and next step', () => {
    const { response: r, file } = renderTriage(small, { kind: 'all' }, false);
    expect(file).toBeUndefined();
    const all = texts(r).join('\n');
    expect(all).toContain('3 RWX claims examined (whole cluster): *2 need attention*');
    expect(all).toContain('`MOUNT_FAILED` 1 · `UNPUBLISH_STUCK` 1 · `OK` 1');
    expect(all).toContain('*Preflight* :white_check_mark: all 1 checks passed');
    expect(all).toContain('*platform/data-postgres-2* — `MOUNT_FAILED`');
    expect(all).toContain('> FailedMount (x9, 2m ago): timed out waiting for the condition');
    expect(all).toContain('*Next:* Go to the node plugin on the node, not the controller.');
    expect(all).toContain('data/backup-1 on node-04, 10m past deletion, finalizers example.com/hold');
    expect(all).not.toContain('search/index —');
    assertSafe(r);
  });

  it('a claim Pending by design (WaitForFirstConsumer) is counted but not listed as needing attention', () => {
    const rep = report([claim('ns', 'wffc', 'PENDING_NO_CONSUMER', { needsAttention: false })]);
    const all = texts(renderTriage(rep, { kind: 'all' }, false).response).join('\n');
    expect(all).toContain('nothing needs attention');
    expect(all).toContain('`PENDING_NO_CONSUMER` 1');
    expect(all).not.toContain('*ns/wffc*');
  });

  it('preflight problems are listed', () => {
    const rep = report([], {
      preflight: [
        {
          check: 'csinode',
          subject: 'ebs.csi.aws.com',
          status: 'problem',
          detail: 'not registered on 2 of 40 nodes',
          nodes: ['node-07', 'node-08'],
        },
      ],
    });
    const all = texts(renderTriage(rep, { kind: 'all' }, false).response).join('\n');
    expect(all).toContain(':x: csinode `ebs.csi.aws.com`: not registered on 2 of 40 nodes (nodes: node-07, node-08)');
    expect(all).toContain('_no ReadWriteMany claims_');
  });

  it('attaches the full report when the claims do not fit', () => {
    const many = report(
      Array.from({ length: 60 }, (_, i) => claim('ns', `c-${String(i).padStart(2, '0')}`, 'MOUNT_FAILED')),
    );
    const { response: r, file } = renderTriage(many, { kind: 'namespace', namespace: 'ns' }, true);
    assertSafe(r);
    expect(r.response_type).toBe('in_channel');
    expect(r.blocks?.filter((b) => b.type === 'section' && b.text.text.includes('— `MOUNT_FAILED`'))).toHaveLength(
      MAX_INLINE_CLAIMS,
    );
    expect(JSON.stringify(r.blocks)).toContain(
      `…and ${60 - MAX_INLINE_CLAIMS} more claims needing attention: the full report has them all.`,
    );
    expect(file?.content).toContain('ns/c-59');
    expect(file?.content).toContain('[MOUNT_FAILED]');
    expect(file?.filename).toBe('rwx-triage-20261130T091500Z.txt');
  });

  it("attaches the full report when one claim's evidence is cut", () => {
    const long = report([
      claim('ns', 'big', 'MOUNT_FAILED', {
        evidence: {
          events: [],
          nodes: [],
          attachments: [],
          stages: [],
          holds: [],
          pods: Array.from({ length: 5 }, (_, i) => ({ namespace: 'ns', name: `${'p'.repeat(250)}${i}`, node: 'n' })),
        },
        advice: ['a'.repeat(2000)],
        detail: 'd'.repeat(1000),
      }),
    ]);
    const { response: r, file } = renderTriage(long, { kind: 'all' }, false);
    assertSafe(r);
    expect(file).toBeDefined();
  });

  it('escapes hostile claim names, events and advice', () => {
    const hostile = report([
      claim('ns', 'x', 'MOUNT_FAILED', {
        detail: '<!channel> & <@U123>',
        evidence: {
          events: [
            {
              object: 'Pod/ns/x',
              type: 'Warning',
              reason: 'FailedMount',
              message: '<https://evil|click> & run',
              count: 1,
            },
          ],
          pods: [],
          nodes: [],
          attachments: [],
          stages: [],
          holds: [],
        },
      }),
    ]);
    const r = renderTriage(hostile, { kind: 'all' }, false).response;
    const all = texts(r).join('\n');
    expect(all).toContain('&lt;!channel&gt; &amp; &lt;@U123&gt;');
    expect(all).toContain('&lt;https://evil|click&gt; &amp; run');
    assertSafe(r);
  });

  it.each([
    [{ kind: 'claim', namespace: 'platform', claim: 'data-postgres-2' } as const, ['platform/data-postgres-2']], // one claim
    [{ kind: 'node', node: 'node-04' } as const, ['data/backup']], // claims whose evidence names the node
    [{ kind: 'node', node: 'node-77' } as const, []], // none
  ])('narrowReport %j', (scope, names) => {
    const n = narrowReport(small, scope);
    expect(n.claims.map((c) => `${c.namespace}/${c.name}`)).toEqual(names);
    expect(n.summary.claimsExamined).toBe(names.length);
    expect(Object.values(n.summary.byPhase).reduce((a, b) => a + b, 0)).toBe(names.length);
  });
});
