// Thread links for /rwx status: asked for once per thread, a failure never cached and never thrown.
import { describe, expect, it } from 'vitest';
import { cachedPermalinks } from '../../src/commands/permalinks.js';
import { RwxError } from '../../src/errors.js';

/** A permalink source that counts its calls and fails while `down`. */
function counting() {
  const s = { calls: 0, down: false };
  const slack = {
    permalink: async (channel: string, ts: string) => {
      s.calls++;
      if (s.down) throw new RwxError('SLACK_API', 'chat.getPermalink: internal_error', { retryable: true });
      return `https://x.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
    },
  };
  return { s, slack };
}

describe('cachedPermalinks', () => {
  it('asks once per thread', async () => {
    const { s, slack } = counting();
    const links = cachedPermalinks(slack);
    expect(await links('C1', '1.000100')).toBe('https://x.slack.com/archives/C1/p1000100');
    expect(await links('C1', '1.000100')).toBe('https://x.slack.com/archives/C1/p1000100');
    await links('C1', '2.000100');
    expect(s.calls).toBe(2);
  });

  it('answers undefined while Slack fails, and asks again next time', async () => {
    const { s, slack } = counting();
    const links = cachedPermalinks(slack);
    s.down = true;
    expect(await links('C1', '1.000100')).toBeUndefined();
    s.down = false;
    expect(await links('C1', '1.000100')).toBe('https://x.slack.com/archives/C1/p1000100');
    expect(s.calls).toBe(2);
  });

  it('forgets the oldest thread past its size', async () => {
    const { s, slack } = counting();
    const links = cachedPermalinks(slack, 2);
    for (const ts of ['1.1', '2.1', '3.1', '1.1']) await links('C1', ts);
    expect(s.calls).toBe(4); // 1.1 was forgotten when 3.1 came in
  });
});
