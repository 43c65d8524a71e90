// That proof from the nodes is possible is said once per channel, not in every thread: in the first reply of the
// first incident none of whose nodes runs an agent. The notifier on real Redis (its claim is the store's, shared
// by replicas and kept across restarts) against the fake Slack over HTTP, through the real WebClient adapter.
import { describe, expect, it } from 'vitest';
import { proofNodes } from '../../src/correlate/proof.js';
import type { Incident } from '../../src/domain/incident.js';
import type { Notifier } from '../../src/notify/notifier.js';
import { FIRST_REPLY_BUDGET, PROOF_HINT } from '../../src/render/slack-evidence.js';
import type { Block } from '../../src/render/slack-blocks.js';
import { visibleLines } from '../../src/slack/terminal-slack.js';
import { realNotifiers } from './real-notifier.js';
import type { FakeMessage } from '../support/fake-slack-methods.js';
import { nodeIncident, rolloutIncident } from '../render/incident-fixtures.js';

const t = realNotifiers();
/** A replica of the notifier (or the same one restarted): same Redis, same prefix. */
const replica = (): Notifier => t.notifier();

/** `incident` with its proof: no agent on any of its nodes, or (`agentOn`) an agent on that one, which saw no fault. */
function withProof(incident: Incident, agentOn?: string): Incident {
  const { nodes } = proofNodes(incident);
  const noAgent = nodes.filter((n) => n !== agentOn);
  return { ...incident, proof: { nodes, omittedNodes: 0, noAgent, pending: [], findings: [] } };
}

/** The first reply of the thread of `key`, once posted. */
async function firstReply(key: string): Promise<FakeMessage> {
  const root = (): FakeMessage | undefined => t.fake.roots().find((m) => m.metadata?.event_payload.key === key);
  await expect.poll(() => root() && t.fake.replies(root()!.ts).length, { timeout: 10_000, interval: 20 }).toBe(1);
  return t.fake.replies(root()!.ts)[0]!;
}

const visible = (m: FakeMessage): string => visibleLines({ text: m.text, blocks: m.blocks as Block[] }).join('\n');
const hinted = (m: FakeMessage): boolean => JSON.stringify(m.blocks).includes('Proof from the nodes is opt-in');

describe('the proof hint', () => {
  it('is in the first reply of the first incident with no agent, not in the next one, on another replica either', async () => {
    const rollout = withProof(rolloutIncident());
    const node = withProof(nodeIncident());
    const a = replica();
    await a.submit([rollout], Date.now());
    const first = await firstReply(rollout.key);
    expect(hinted(first)).toBe(true);
    expect(visible(first)).toContain(PROOF_HINT.replaceAll('`', ''));
    expect(visible(first).replaceAll('\n', '').length).toBeLessThanOrEqual(FIRST_REPLY_BUDGET);

    await a.submit([rollout, node], Date.now());
    expect(hinted(await firstReply(node.key))).toBe(false);

    // Another replica (or this one restarted) on the same Redis: said already in this channel.
    const b = replica();
    const other = withProof(nodeIncident('node-8'));
    await b.submit([other], Date.now());
    expect(hinted(await firstReply(other.key))).toBe(false);
    // Only the first reply says it: the root never does.
    expect(t.fake.roots().some(hinted)).toBe(false);
  });

  it('a retry after Slack took the posts but the answers were lost says it once, in the one first reply', async () => {
    t.fake.failAfterHandling('chat.postMessage', 2); // the root, then the first reply: in Slack, answered 500
    const a = replica();
    const rollout = withProof(rolloutIncident());
    await a.submit([rollout], Date.now());
    const first = await firstReply(rollout.key);
    await expect.poll(() => a.queueDepth(), { timeout: 10_000, interval: 20 }).toBe(0);
    expect(t.fake.callsOf('chat.postMessage')).toHaveLength(2); // each retry looked its post up instead
    expect(t.fake.roots()).toHaveLength(1);
    expect(t.fake.replies(t.fake.roots()[0]!.ts)).toEqual([first]);
    expect(hinted(first)).toBe(true);
  });

  it('waits for an incident none of whose nodes runs an agent', async () => {
    const a = replica();
    const partly = withProof(rolloutIncident(), 'node-19');
    await a.submit([partly], Date.now());
    expect(hinted(await firstReply(partly.key))).toBe(false);
    const none = withProof(nodeIncident());
    await a.submit([partly, none], Date.now());
    expect(hinted(await firstReply(none.key))).toBe(true);
  });

  it('is not said for an incident with no proof at all (no node to ask)', async () => {
    const a = replica();
    const { proof: _none, ...bare } = nodeIncident();
    await a.submit([bare], Date.now());
    expect(hinted(await firstReply(bare.key))).toBe(false);
  });
});
