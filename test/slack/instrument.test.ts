import { describe, expect, it } from 'vitest';
import { RwxError } from '../../src/errors.js';
import { instrumentSlack } from '../../src/slack/instrument.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';

describe('instrumentSlack', () => {
  it('reports ok and error codes per method, passing results and errors through', async () => {
    const inner = new MemorySlack();
    const seen: string[] = [];
    const slack = instrumentSlack(inner, (m, o) => seen.push(`${m}:${o}`));
    const { ts } = await slack.postMessage({ channel: 'C', text: 'x' });
    inner.failNext('update', new RwxError('SLACK_RATE_LIMITED', 'slow down', { retryAfterSeconds: 2 }));
    await expect(slack.update({ channel: 'C', ts, text: 'y' })).rejects.toMatchObject({ code: 'SLACK_RATE_LIMITED' });
    expect(await slack.findThreadReply('C', ts, 'k', 'evidence')).toBeUndefined();
    expect(seen).toEqual(['postMessage:ok', 'update:SLACK_RATE_LIMITED', 'findThreadReply:ok']);
  });
});
