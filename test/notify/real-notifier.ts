// The notifier on real Redis (BullMQ) against the fake Slack over HTTP, through the real WebClient adapter, with
// timers of a few ms (BullMQ delays are real time): what the notifier's own tests share. Each test gets its own key
// prefix, removed after it, and the notifiers it made are closed.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type Notifier, createNotifier } from '../../src/notify/notifier.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';

export interface RealNotifiers {
  redis: Redis;
  /** The fake Slack (one per file, reset before each test). */
  readonly fake: FakeSlack;
  /** This test's key prefix. */
  readonly prefix: string;
  /** A notifier (a replica, or the same one restarted): same Redis, same prefix; closed after the test. */
  notifier(over?: Partial<Parameters<typeof createNotifier>[0]>): Notifier;
}

/** Registers the file's hooks and returns what its tests use. Call once, at the top of a test file. */
export function realNotifiers(): RealNotifiers {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let fake: FakeSlack | undefined;
  let prefix = '';
  const made: Notifier[] = [];
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await fake?.close();
    await redis.quit();
  });
  beforeEach(() => {
    prefix = `rwx-test-${randomUUID()}`;
    fake?.reset();
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((n) => n.close()));
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  return {
    redis,
    get fake() {
      if (!fake) throw new Error('the fake Slack is started in beforeAll');
      return fake;
    },
    get prefix() {
      return prefix;
    },
    notifier(over = {}) {
      const n = createNotifier({
        redis,
        prefix,
        channel: 'C0INCIDENTS',
        slack: createWebSlackApi({ token: 'xoxb-test-token', slackApiUrl: this.fake.apiUrl }),
        timers: { groupWait: 20, groupInterval: 20, repeatInterval: 3_600_000, keepFiring: 0 },
        backoffMs: 10,
        lockRetryMs: 10,
        ...over,
      });
      made.push(n);
      return n;
    },
  };
}
