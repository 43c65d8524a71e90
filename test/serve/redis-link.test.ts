// The bot's Redis link against the real Redis: a connection the server drops is logged once lost and once back
// (readiness follows); a connection the bot closes itself at shutdown is not an outage and logs nothing.
import { describe, expect, it } from 'vitest';
import { connectRedis, watchRedisLink } from '../../src/serve/redis.js';
import { until } from '../support/until.js';

const URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function capture() {
  const lines: { level: 'warn' | 'info'; msg: string; obj: object }[] = [];
  const ups: boolean[] = [];
  const log = {
    warn: (obj: object, msg: string) => void lines.push({ level: 'warn', msg, obj }),
    info: (obj: object, msg: string) => void lines.push({ level: 'info', msg, obj }),
  };
  return { lines, ups, log, up: (u: boolean) => void ups.push(u) };
}

describe('watchRedisLink', () => {
  it('a connection the server kills: one "lost" line, one "back" line with how long, readiness down then up', async () => {
    const redis = await connectRedis(URL);
    const admin = await connectRedis(URL);
    try {
      const c = capture();
      watchRedisLink(redis, c.log, c.up);
      const id = await redis.client('ID');
      await admin.client('KILL', 'ID', String(id));
      await until(() => c.lines.some((l) => l.msg === 'redis connection back'), 'the link back');
      expect(c.lines.map((l) => l.msg)).toEqual([
        'redis connection lost: riding it out (readiness names Redis until it answers)',
        'redis connection back',
      ]);
      expect(c.lines[1]!.obj).toHaveProperty('downMs');
      expect(c.ups).toEqual([false, true]);
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
      admin.disconnect();
    }
  });

  it('quit and disconnect at shutdown are not an outage: nothing logged, readiness untouched', async () => {
    for (const close of ['quit', 'disconnect'] as const) {
      const redis = await connectRedis(URL);
      const c = capture();
      watchRedisLink(redis, c.log, c.up);
      await (close === 'quit' ? redis.quit() : redis.disconnect());
      await until(() => redis.status === 'end', `the connection ended (${close})`);
      await new Promise((r) => setTimeout(r, 200));
      expect(c.lines, close).toEqual([]);
      expect(c.ups, close).toEqual([]);
    }
  });
});
