// The Redis notice (src/serve/redis-notice.ts): two `rwx serve` replicas on the test's own redis-server, the
// simulator and the fake Slack, on a shared ManualClock. Redis killed for less than RWX_BLIND_AFTER says nothing;
// killed for longer, the channel gets one notice during the outage (from the replica that held the lease, even when
// the answer to its post is lost) and one "could not reach Redis from .. to ..; incidents re-evaluated" line in its
// thread once Redis is back; the open root is redrawn from its record, and there is still one root, whether Redis
// kept its data or came back empty.
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../support/fake-slack.js';
import { until } from '../support/until.js';
import { ownRedis, redisServerTool, type OwnRedis } from './own-redis.js';
import { replicas, type Replicas } from './replicas.js';

let r: Replicas | undefined;
let redis: OwnRedis | undefined;
afterEach(async () => {
  await r?.close().catch(() => undefined);
  await redis?.stop();
  r = redis = undefined;
});

const NOTICE = /^:warning: The bot cannot reach Redis, where it keeps its incidents, since <!date\^\d+\^/;
const BACK =
  /^:white_check_mark: The bot could not reach Redis from <!date\^\d+\^[^>]*> to <!date\^\d+\^[^>]*>; incidents re-evaluated\.$/;

const notices = (s: FakeSlack) => s.roots('C0INCIDENT').filter((m) => NOTICE.test(m.text));
const incidentRoots = (s: FakeSlack) =>
  s
    .roots('C0INCIDENT')
    .filter(
      (m) =>
        m.metadata?.event_payload.key !== undefined && !/^redis-outage\//.test(String(m.metadata.event_payload.key)),
    );
// Log lines (JSON) of one replica with a message matching `msg`.
const logged = (x: Replicas, replica: string, msg: RegExp) =>
  x.lines.filter((l) => l.includes(`"replica":"${replica}"`) && msg.test(l)).length;

// Kills Redis and waits until both replicas' connections noticed.
async function kill(x: Replicas, o: OwnRedis): Promise<void> {
  const before = ['a', 'b'].map((n) => logged(x, n, /redis connection lost/));
  await o.stop('SIGKILL');
  await until(
    () => ['a', 'b'].every((n, i) => logged(x, n, /redis connection lost/) > before[i]!),
    'both see Redis down',
  );
}

async function restart(x: Replicas, o: OwnRedis): Promise<void> {
  const before = ['a', 'b'].map((n) => logged(x, n, /redis connection back/));
  await o.start();
  await until(
    () => ['a', 'b'].every((n, i) => logged(x, n, /redis connection back/) > before[i]!),
    'both see Redis back',
    20_000,
  );
}

describe.runIf(redisServerTool.run)(`Redis away, two replicas${redisServerTool.note}`, () => {
  for (const persistent of [true, false]) {
    it(`${persistent ? 'with persistence' : 'back empty'}: a blip says nothing; a long outage is told once during it and once after`, async () => {
      redisServerTool.check();
      redis = await ownRedis(persistent);
      await redis.start();
      r = await replicas('scenarios/propagation-loss.yaml', { groupWait: '200ms', groupInterval: '300ms' }, redis.url);
      const env = { RWX_BLIND_AFTER: '30s' };
      await r.start('a', { redisUrl: redis.url, env }); // first: it takes the evaluator lease
      await r.start('b', { redisUrl: redis.url, env });
      await r.advance(1_000);
      await until(() => incidentRoots(r!.slack).length === 1, 'the root');
      const root = incidentRoots(r.slack)[0]!;
      await until(() => r!.slack.evidenceShown(root.ts), 'the evidence replies');

      // A blip: 10 s (sim time) without Redis, then back: nothing in the channel.
      await kill(r, redis);
      await r.advance(10_000);
      await restart(r, redis);
      await r.advance(1_000);
      await r.advance(1_000);
      expect(notices(r.slack)).toEqual([]);
      expect(r.slack.roots('C0INCIDENT')).toHaveLength(1);

      // Longer than RWX_BLIND_AFTER: one notice while Redis is away, from the replica that held the lease.
      // Its first post reaches Slack but the answer is lost (a 500): the retry finds it by its metadata.
      await kill(r, redis);
      r.slack.failAfterHandling('chat.postMessage');
      await r.advance(31_000);
      await r.advance(1_000);
      expect(notices(r.slack)).toHaveLength(1);
      expect(logged(r, 'a', /redis notice posted/)).toBe(1);
      expect(logged(r, 'b', /redis notice posted/)).toBe(0);
      const [notice] = notices(r.slack);

      const back = r.slack.callsOf('chat.update').length;
      await restart(r, redis);
      await r.advance(1_000);
      await r.advance(1_000);
      await until(() => r!.slack.replies(notice!.ts).length > 0, 'the line in the notice thread');
      // Redis back empty: the record is written again by the evaluation and its root adopted (after group_wait).
      for (let i = 0; i < 3; i++) await r.advance(1_000);
      await until(
        () =>
          r!.slack
            .callsOf('chat.update')
            .slice(back)
            .some((c) => c.args.ts === root.ts && c.handled),
        'the root redrawn',
      );
      for (let i = 0; i < 3; i++) await r.advance(1_000);

      expect(r.slack.replies(notice!.ts).map((m) => m.text)).toEqual([expect.stringMatching(BACK)]);
      expect(notices(r.slack)).toHaveLength(1);
      expect(incidentRoots(r.slack)).toEqual([expect.objectContaining({ ts: root.ts })]);
      expect(r.slack.roots('C0INCIDENT')).toHaveLength(2); // the root and the notice: nothing else in the channel
      const ids = r.slack.replies(root.ts).map((m) => m.metadata?.event_payload.reply);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => id === 'evidence')).toHaveLength(1);
    }, 120_000);
  }
});
