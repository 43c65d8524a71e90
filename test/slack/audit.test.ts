// The audit trail of the bot's own messages: one line per message posted or edited (through the SlackApi every
// post goes through), with the channel, the method, the incident, the result and the latency; look-ups are not
// audited, and neither the text nor a token is in the line.
import { describe, expect, it } from 'vitest';
import { RwxError } from '../../src/errors.js';
import { incidentMetadata } from '../../src/slack/api.js';
import { auditSlack, type AuditLine } from '../../src/slack/audit.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';

describe('auditSlack', () => {
  it('writes one line per post and edit, naming the incident from the metadata or the root buttons', async () => {
    const inner = new MemorySlack();
    const lines: AuditLine[] = [];
    const slack = auditSlack(inner, (l) => lines.push(l));
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'secret text', metadata: incidentMetadata('inc/1') });
    const buttons = [{ type: 'actions', elements: [{ type: 'button', action_id: 'rwx_ack', value: 'inc/1' }] }];
    await slack.update({ channel: 'C1', ts, text: 'edited', blocks: buttons as never });
    inner.failNext('postMessage', new RwxError('SLACK_RATE_LIMITED', 'slow down', { retryAfterSeconds: 1 }));
    await expect(slack.postMessage({ channel: 'C1', text: 'x', threadTs: ts })).rejects.toThrow();
    await slack.findThreadReply('C1', ts, 'inc/1', 'evidence'); // a look-up: not audited
    expect(lines.map(({ latency_ms: _, ...l }) => l)).toEqual([
      { audit: 'message', who: 'bot', channel: 'C1', action: 'chat.postMessage', incident: 'inc/1', result: 'ok', ts },
      { audit: 'message', who: 'bot', channel: 'C1', action: 'chat.update', incident: 'inc/1', result: 'ok', ts },
      { audit: 'message', who: 'bot', channel: 'C1', action: 'chat.postMessage', result: 'SLACK_RATE_LIMITED' },
    ]);
    for (const l of lines) expect(typeof l.latency_ms).toBe('number');
    expect(JSON.stringify(lines)).not.toContain('secret text');
  });
});
