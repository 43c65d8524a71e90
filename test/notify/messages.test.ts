// The message settings (RWX_RUNBOOK_URL / RWX_DASHBOARD_URL, RWX_MENTION_USERGROUP, RWX_BROADCAST_RESOLUTION) as
// the notify steps apply them, on the in-memory fakes: links on every open root, the mention only on the post of a
// new root, the resolution broadcast unless turned off.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { RwxError } from '../../src/errors.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import type { MessageOptions } from '../../src/notify/deps.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { KEY, M, S, stageDeps } from './harness.js';

let clock: ManualClock;
let slack: MemorySlack;
const LINKS = { runbook: 'https://wiki.example.com/csi', dashboard: 'https://grafana.example.com/d/rwx' };

function depsWith(messages: MessageOptions): StepDeps {
  return { ...stageDeps(clock, slack), messages };
}
const submit = (deps: StepDeps, incidents = [rolloutIncident()]) =>
  recordEvaluation({ store: deps.store, channel: 'C1', groupWait: DEFAULT_TIMERS.groupWait }, incidents, clock.now());
/** Every Slack call with its arguments as JSON, in order. */
const calls = () => slack.calls.map((c) => ({ method: c.method, json: JSON.stringify(c.args) }));

beforeEach(() => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
});

/** Opens the incident (root + evidence), changes it once (an edit), then clears it (resolution + resolved root). */
async function story(deps: StepDeps): Promise<void> {
  await submit(deps);
  clock.advance(30 * S);
  await processIncident(deps, KEY);
  clock.advance(6 * M);
  await submit(deps, [rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
  await processIncident(deps, KEY);
  clock.advance(6 * M);
  await submit(deps, []);
  await processIncident(deps, KEY);
}

describe('message settings', () => {
  it('mentions the user group in the new root only; link buttons on every open root; resolution broadcast', async () => {
    const deps = depsWith({ links: LINKS, mentionUsergroup: 'S0ONCALL', broadcastResolution: true });
    await story(deps);
    const mentioned = calls().filter((c) => c.json.includes('<!subteam^S0ONCALL>'));
    expect(mentioned.map((c) => c.method)).toEqual(['postMessage']);
    expect(mentioned[0]!.json).not.toContain('"threadTs"');
    const open = calls().filter((c) => c.json.includes('rwx_ack')); // the open root: its post and its edit
    expect(open.map((c) => c.method)).toEqual(['postMessage', 'update']);
    for (const c of open) expect(c.json).toContain(LINKS.runbook);
    const broadcast = slack.messages.filter((m) => m.broadcast);
    expect(broadcast.map((m) => m.metadata?.event_payload.reply)).toEqual(['resolution']);
  });

  it('keeps the resolution in the thread when RWX_BROADCAST_RESOLUTION is false', async () => {
    await story(depsWith({ links: {}, broadcastResolution: false }));
    expect(slack.messages.some((m) => m.metadata?.event_payload.reply === 'resolution')).toBe(true);
    expect(slack.messages.filter((m) => m.broadcast)).toEqual([]);
    expect(calls().some((c) => c.json.includes('subteam') || c.json.includes('rwx_link_'))).toBe(false);
  });

  it('a root adopted after an interrupted post is not mentioned again', async () => {
    const deps = depsWith({ links: {}, mentionUsergroup: 'S0ONCALL', broadcastResolution: true });
    await submit(deps);
    clock.advance(30 * S);
    // The post reaches Slack, the answer is lost: the retry finds the root by its metadata and edits it.
    const post = slack.postMessage.bind(slack);
    let lose = true;
    slack.postMessage = async (a) => {
      const res = await post(a);
      if (lose && !a.threadTs) {
        lose = false;
        throw new RwxError('SLACK_API', 'connection reset', { retryable: true });
      }
      return res;
    };
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    await processIncident(deps, KEY);
    expect(slack.roots()).toHaveLength(1);
    const adopted = slack.calls.filter((c) => c.method === 'update');
    expect(adopted.length).toBeGreaterThan(0);
    for (const c of adopted) expect(JSON.stringify(c.args)).not.toContain('subteam');
  });
});
