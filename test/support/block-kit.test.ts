// The Block Kit checker must be able to fail: each case breaks one rule and must be reported.
import { describe, expect, it } from 'vitest';
import { blockKitProblems } from './block-kit.js';

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (text: string, action_id: string, url?: string) => ({
  type: 'button',
  text: { type: 'plain_text', text },
  action_id,
  ...(url ? { url } : {}),
});
const ok = {
  text: 'Do not drain. Follows a node plugin rollout. x',
  blocks: [section('fine &amp; <@U1> <!subteam^S1> <#C0TEAM>')],
};

describe('blockKitProblems', () => {
  it('passes a well-formed message with our control sequences', () => {
    const date = '<!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC>';
    const link = '<https://x.slack.com/archives/C1/p1|title &lt;b&gt;>';
    expect(blockKitProblems({ ...ok, blocks: [section(`${date} ${link} \`\`\`a\`\`\``)] })).toEqual([]);
  });

  it.each([
    ['no fallback text', { blocks: ok.blocks }, /no fallback text/],
    ['fallback over 4000', { text: 'x'.repeat(4001), blocks: [] }, /fallback text 4001/],
    ['51 blocks', { text: 't', blocks: Array.from({ length: 51 }, () => section('s')) }, /51 blocks/],
    ['section over 3000', { text: 't', blocks: [section('s'.repeat(3001))] }, /section text 3001/],
    [
      'header over 150',
      { text: 't', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }] },
      /header 151/,
    ],
    [
      'button text over 75',
      { text: 't', blocks: [{ type: 'actions', elements: [button('b'.repeat(76), 'a')] }] },
      /button text 76/,
    ],
    [
      'action ids repeated',
      { text: 't', blocks: [{ type: 'actions', elements: [button('a', 'x'), button('b', 'x')] }] },
      /action_id x used twice/,
    ],
    [
      'a link button that is not https',
      { text: 't', blocks: [{ type: 'actions', elements: [button('a', 'x', 'javascript:alert(1)')] }] },
      /not an https URL/,
    ],
    ['a bare & from a pod name', { text: 't', blocks: [section('a & b')] }, /unescaped &/],
    ['a mention from a pod name', { text: 't', blocks: [section('pod <!channel>')] }, /unescaped </],
    ['a mention in the fallback text', { text: '<!here> x', blocks: [] }, /text: unescaped </],
    ['a channel by name, not ID', { text: 't', blocks: [section('<#payments>')] }, /unescaped </],
    ['a code fence left open', { text: 't', blocks: [section('```a``` ``` b')] }, /unbalanced code fence/],
  ])('reports %s', (_name, message, want) => {
    expect(blockKitProblems(message).join('\n')).toMatch(want);
  });
});
