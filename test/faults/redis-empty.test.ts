// Redis comes back EMPTY (no persistence) under a running bot: every record, lock and job is gone. The open
// incident's thread is found again from Slack by its metadata (post-root from pending looks first), so there is no
// second root and no second evidence reply, and the next change edits the same root. Its own redis-server.
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { ownRedis, redisServerTool, type OwnRedis } from './own-redis.js';
import { replicas, type Replicas } from './replicas.js';
import { expectOneThread, sample } from './thread.js';

let r: Replicas | undefined;
let redis: OwnRedis | undefined;
afterEach(async () => {
  await r?.close().catch(() => undefined);
  await redis?.stop();
  r = redis = undefined;
});

describe.runIf(redisServerTool.run)(`Redis back empty${redisServerTool.note}`, () => {
  it('finds the thread again from Slack: one root, one evidence reply, the next change edits it', async () => {
    redisServerTool.check();
    redis = await ownRedis(false);
    await redis.start();
    r = await replicas('scenarios/propagation-loss.yaml', { groupWait: '200ms', groupInterval: '300ms' }, redis.url);
    await r.start('a', { redisUrl: redis.url });
    await r.advance(1_000);
    await until(() => r!.slack.roots().length === 1, 'the root');
    const root = r.slack.roots()[0]!;
    await until(() => r!.slack.evidenceShown(root.ts), 'the evidence replies');

    await redis.stop('SIGKILL');
    await redis.start(); // empty
    const back = Date.now();
    for (let i = 0; i < 5; i++) await r.advance(2_000);
    await until(() => r!.slack.callsOf('chat.update').some((c) => c.args.ts === root.ts && c.handled), 'root adopted');
    console.log(`redis back empty: root adopted ${Date.now() - back} ms after Redis answered`);
    // clickhouse-1 gets stuck at +10m: a change, edited into the same root with a reply.
    for (let m = 0; m < 11; m++) await r.advance(60_000);
    await until(() => r!.slack.replies(root.ts).some((x) => /Changed/.test(x.text)), 'the change reply');
    expectOneThread(r.slack, root.ts); // clickhouse-1 is a real new member: no check for invented changes
    // Healthy, and what happened is in the log and the metrics.
    const ops = `http://127.0.0.1:${r.running.get('a')!.port}`;
    expect((await fetch(`${ops}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    expect(sample(metrics, 'rwx_redis_up')).toBe(1);
    expect(r.lines.join('')).toMatch(/redis connection lost[^]*redis connection back/);
  });
});
