// The Redis notice: while Redis does not answer the bot can neither record what it sees nor post (records, locks and
// jobs all live there), so the incident channel is told, once across replicas: during the outage when one replica
// may speak, and in any case once Redis is back ("could not reach Redis from .. to ..; incidents re-evaluated").
// During the outage there is no shared state to claim a notice with, so only the replica that held the evaluator
// lease when its connection dropped speaks (lease.heldUntil still ahead then: the outage began while it held the one
// lease, which no other replica can have held at that moment). It looks the notice up in the channel by its message
// metadata first (its own post whose answer was lost), then posts it, and keeps the ts in memory.
// Once Redis is back, the first replica to claim the outage in Redis (`<prefix>:redis-outage` holds the span told
// last; a replica whose span overlaps it stays quiet) tells it, when some replica with a current view holds the lease
// again (so the incidents are re-evaluated): it redraws the open roots from their records and runs their jobs
// (Notifier.reconcile; a root whose record was lost with Redis is adopted by its metadata when the evaluation
// records the incident again, post-root.ts), then answers the notice in its thread, or says it in the channel.
// An outage shorter than RWX_BLIND_AFTER says nothing.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { escapeSlack } from '../render/escape.js';
import { slackDate } from '../render/slack-blocks.js';
import { type SlackApi, incidentMetadata, replyMetadata } from '../slack/api.js';
import { redisDown } from '../store/ride-out.js';
import type { EvaluatorLease } from './lease.js';

/** How long a told outage's span is kept in Redis for the other replicas to find (they are back within seconds). */
export const TOLD_TTL_MS = 3_600_000;
// Sets the span (ARGV 1-3: since, until, replica) unless a span another replica told overlaps it; 1 when set.
const CLAIM = `local cur = redis.call('GET', KEYS[1])
if cur then
  local f, t, who = string.match(cur, '^(%d+):(%d+):(.*)$')
  if f and who ~= ARGV[3] and tonumber(f) <= tonumber(ARGV[2]) and tonumber(ARGV[1]) <= tonumber(t) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2] .. ':' .. ARGV[3], 'PX', ARGV[4])
return 1`;

export interface RedisNoticeOptions {
  /** The connection whose loss is the outage (its 'reconnecting' and 'ready' events). */
  redis: Redis;
  /** This cluster's own key prefix (the fleet member's in a fleet). */
  prefix: string;
  /** Slack for the notice posted during the outage (nothing that needs Redis: not the fleet limiter). */
  slack: SlackApi;
  /** Slack for the line once Redis is back (a fleet's shared limiter: every cluster may say it at once). */
  posting: SlackApi;
  channel: string;
  /** RWX_BLIND_AFTER in ms: how long Redis must be away before the channel is told. */
  afterMs: number;
  /** Shown in the messages when set (several clusters may share one channel). */
  cluster: string;
  log: Logger;
  lease: Pick<EvaluatorLease, 'id' | 'heldUntil' | 'taken'>;
  /** The open incidents' roots, brought in line with their records once Redis is back (Notifier.reconcile). */
  roots: { reconcile(): Promise<unknown> };
  clock: Clock;
}

/** One outage as this replica saw it (serve clock), and what it said of it so far. */
interface Outage {
  since: number;
  /** When the connection was ready again; undefined while Redis is away. */
  until?: number;
  /** Whether this replica held the lease when the connection dropped: it alone speaks during the outage. */
  speaker: boolean;
  /** The notice's ts, once posted or found. */
  notice?: string;
  /** The open roots were reconciled with their records (once, not on every retry of the line). */
  reconciled?: boolean;
  /** The line's post was started: a retry looks it up first (its answer may have been lost). */
  posting?: boolean;
}

/** The metadata key of a cluster's Redis notice (message metadata, like an incident root). */
export function redisNoticeKey(prefix: string): string {
  return `redis-outage/${prefix}`;
}

/** Follows the connection and, on every serve tick, says what there is to say. */
export class RedisNotice {
  private outage: Outage | undefined;

  constructor(private readonly o: RedisNoticeOptions) {
    o.redis.on('reconnecting', () => this.lost());
    o.redis.on('ready', () => {
      if (this.outage && this.outage.until === undefined) this.outage.until = o.clock.now();
    });
  }

  private get key(): string {
    return redisNoticeKey(this.o.prefix);
  }

  // 'reconnecting' comes on every attempt; the first one opens the outage. Lost again before the line was told:
  // still the same outage.
  private lost(): void {
    if (this.outage) {
      delete this.outage.until;
      return;
    }
    const held = this.o.lease.heldUntil();
    this.outage = { since: this.o.clock.now(), speaker: held !== undefined && Date.now() < held };
  }

  /** One round (every serve tick, after the evaluation). Never throws (a failure is logged and retried). */
  async check(now: number): Promise<void> {
    const o = this.outage;
    if (!o) return;
    try {
      if (o.until === undefined) await this.during(o, now);
      else await this.after(o, o.until);
    } catch (e) {
      if (!redisDown(e)) this.o.log.warn({ err: e }, 'redis notice failed; retried next tick');
    }
  }

  private of(): string {
    return this.o.cluster ? ` of cluster *${escapeSlack(this.o.cluster)}*` : '';
  }

  private async during(o: Outage, now: number): Promise<void> {
    if (!o.speaker || o.notice || now - o.since < this.o.afterMs) return;
    o.notice = await this.unanswered(o.since);
    if (!o.notice) {
      const text =
        `:warning: The bot${this.of()} cannot reach Redis, where it keeps its incidents, since ${slackDate(o.since)}: ` +
        'incident threads are not updated and new incidents are not posted until it can. Check the cluster yourself.';
      const post = { channel: this.o.channel, text, metadata: incidentMetadata(this.key) };
      o.notice = (await this.o.slack.postMessage(post)).ts;
    }
    this.o.log.warn({ ts: o.notice, since: o.since }, 'redis notice posted: the bot cannot reach Redis');
  }

  private async after(o: Outage, until: number): Promise<void> {
    if (!o.notice && until - o.since < this.o.afterMs) {
      this.outage = undefined; // a blip
      return;
    }
    if (!(await this.o.lease.taken())) return; // nobody evaluates yet: "re-evaluated" would not be true
    if (!(await this.claim(o.since, until))) {
      this.outage = undefined; // another replica tells this outage
      return;
    }
    if (!o.reconciled) await this.o.roots.reconcile();
    o.reconciled = true;
    const text = `:white_check_mark: The bot${this.of()} could not reach Redis from ${slackDate(o.since)} to ${slackDate(until)}; incidents re-evaluated.`;
    o.notice ??= await this.unanswered(o.since);
    await (o.notice ? this.reply(o, o.notice, text) : this.say(o, text));
    this.o.log.info({ since: o.since, until, ts: o.notice }, 'redis notice: Redis answers again, told once');
    this.outage = undefined;
  }

  // The newest notice of this cluster posted since `since` that has no "back" reply yet.
  private async unanswered(since: number): Promise<string | undefined> {
    const ts = await this.o.slack.findRootByIncidentKey(this.o.channel, this.key, since);
    if (!ts) return undefined;
    return (await this.o.slack.findThreadReply(this.o.channel, ts, this.key, 'back')) ? undefined : ts;
  }

  private async reply(o: Outage, ts: string, text: string): Promise<void> {
    if (o.posting && (await this.o.posting.findThreadReply(this.o.channel, ts, this.key, 'back'))) return;
    o.posting = true;
    const metadata = replyMetadata(this.key, 'back');
    await this.o.posting.postMessage({ channel: this.o.channel, threadTs: ts, text, metadata });
  }

  // No notice to answer: the line goes in the channel, marked so a retry finds it.
  private async say(o: Outage, text: string): Promise<void> {
    const key = `${this.key}@${o.since}`;
    if (o.posting && (await this.o.posting.findRootByIncidentKey(this.o.channel, key, o.since))) return;
    o.posting = true;
    await this.o.posting.postMessage({ channel: this.o.channel, text, metadata: incidentMetadata(key) });
  }

  private async claim(since: number, until: number): Promise<boolean> {
    const args = [since, until, this.o.lease.id, TOLD_TTL_MS];
    return (await this.o.redis.eval(CLAIM, 1, `${this.o.prefix}:redis-outage`, ...args)) === 1;
  }
}
