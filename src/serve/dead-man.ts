// The dead-man notice: when no replica has seen the cluster for RWX_BLIND_AFTER, the incident channel is told so
// once, and a reply in that notice's thread says when the bot sees again. "Sees" is the one notion of freshness the
// lease already uses (ClusterWatcher.current: every watch synced and heard from lately, the API answering), or any
// replica holding the evaluator lease (a holder is current by construction), so a blind standby next to a seeing
// holder stays quiet. One notice across replicas: `<prefix>:blind` is claimed with SET NX and then holds the
// notice's ts; whoever sees first takes the ts away (GET + DEL in one script) and posts the reply.
// The open roots say so too: the replica that posts the notice marks every open incident stale (its root gets a
// "stale since" line through the notifier's own steps, src/notify/stale.ts), and a replica that sees again after
// being blind (or at its first tick, after a restart) clears the marks.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { escapeSlack } from '../render/escape.js';
import { slackDate } from '../render/slack-blocks.js';
import type { SlackApi } from '../slack/api.js';

/** Claimed while the notice is being posted; expires so a replica that dies mid-post does not block the next one. */
const POSTING = 'posting';
const CLAIM_TTL_MS = 60_000;
// Takes the notice's ts away (once, across replicas); a claim still being posted is left alone.
const TAKE = `local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[1] then redis.call('DEL', KEYS[1]) return v end
return false`;

export interface DeadManOptions {
  redis: Redis;
  /** This cluster's own key prefix (the fleet member's in a fleet). */
  prefix: string;
  slack: SlackApi;
  channel: string;
  /** RWX_BLIND_AFTER in ms. */
  afterMs: number;
  /** Shown in the messages when set (several clusters may share one channel). */
  cluster: string;
  log: Logger;
  /** The open incidents' roots: marked stale since the blind time, or cleared with undefined (Notifier.markStale). */
  roots?: { markStale(since: number | undefined): Promise<unknown> };
}

/** Called on every serve tick with whether the cluster is seen; posts or clears the notice. */
export class DeadMan {
  private blindSince: number | undefined;
  // Whether roots may carry a stale mark this replica has not cleared: after being blind, and at start (a replica
  // that died blind left them marked).
  private mayBeStale = true;

  constructor(private readonly o: DeadManOptions) {}

  private get key(): string {
    return `${this.o.prefix}:blind`;
  }

  /** One round: `seen` is this tick's answer (see the file comment). Never throws (a failure is logged). */
  async check(seen: boolean, now: number): Promise<void> {
    try {
      if (seen) {
        this.blindSince = undefined;
        await this.unmarkRoots();
        await this.clear(now);
        return;
      }
      this.blindSince ??= now;
      this.mayBeStale = true;
      if (now - this.blindSince >= this.o.afterMs) await this.notice(this.blindSince);
    } catch (e) {
      this.o.log.warn({ err: e }, 'dead-man notice failed; retried next tick');
    }
  }

  private where(): string {
    return this.o.cluster ? ` *${escapeSlack(this.o.cluster)}*` : '';
  }

  private async notice(since: number): Promise<void> {
    const claimed = await this.o.redis.set(this.key, POSTING, 'PX', CLAIM_TTL_MS, 'NX');
    if (claimed !== 'OK') return; // posted already (or being posted) by this or another replica
    const text =
      `:warning: The bot cannot see the cluster${this.where()} since ${slackDate(since)} ` +
      '(API server unreachable, or its watches not synced or stalled). Until it sees again, incident messages may be ' +
      'stale and new incidents are not reported: check the cluster yourself.';
    try {
      await this.o.roots?.markStale(since);
      const { ts } = await this.o.slack.postMessage({ channel: this.o.channel, text });
      await this.o.redis.set(this.key, ts);
      this.o.log.warn({ ts, since }, 'dead-man notice posted: the bot cannot see the cluster');
    } catch (e) {
      await this.o.redis.del(this.key).catch(() => undefined);
      throw e;
    }
  }

  private async unmarkRoots(): Promise<void> {
    if (!this.mayBeStale || !this.o.roots) return;
    await this.o.roots.markStale(undefined);
    this.mayBeStale = false;
  }

  private async clear(now: number): Promise<void> {
    const ts = (await this.o.redis.eval(TAKE, 1, this.key, POSTING)) as string | null;
    if (!ts) return;
    const text = `:white_check_mark: The bot sees the cluster${this.where()} again at ${slackDate(now)}.`;
    try {
      await this.o.slack.postMessage({ channel: this.o.channel, text, threadTs: ts });
    } catch (e) {
      await this.o.redis.set(this.key, ts, 'NX').catch(() => undefined); // the next tick replies instead
      throw e;
    }
    this.o.log.info({ ts }, 'dead-man notice cleared: the bot sees the cluster again');
  }
}
