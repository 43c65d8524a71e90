import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffUpTo, defaultMs } from '../../src/config/index.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { isRwxError } from '../../src/errors.js';

describe('the default durations, read from the key table', () => {
  it.each([
    ['groupWait', 30_000], // the notifier's timers
    ['repeatInterval', 4 * 3_600_000],
    ['watchIdleTimeout', 75_000], // the API server's bookmark minute plus 15 s
    ['retryMax', 10_000], // the cap of every backoff
    ['slackRequestTimeout', 10_000], // one Slack Web API call
    ['lockTtl', 30_000], // the incident lock's and its notify job's (BullMQ's own default lockDuration)
  ] as const)('%s is %d ms', (key, ms) => expect(defaultMs(key)).toBe(ms));

  it('refuses a key whose default is not a duration, naming it', () => {
    try {
      defaultMs('port');
      expect.unreachable();
    } catch (e) {
      expect(isRwxError(e, 'USAGE')).toBe(true);
      expect((e as Error).message).toContain('port');
    }
  });

  it('the notifier and the retry loops use them, not numbers of their own', () => {
    expect(DEFAULT_TIMERS).toEqual({
      groupWait: defaultMs('groupWait'),
      groupInterval: defaultMs('groupInterval'),
      repeatInterval: defaultMs('repeatInterval'),
      keepFiring: defaultMs('keepFiring'),
    });
    expect(DEFAULT_BACKOFF).toEqual(backoffUpTo(defaultMs('retryMax')));
  });
});
