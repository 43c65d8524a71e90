// The dead-man notice: when no replica has seen the cluster for RWX_BLIND_AFTER, the incident channel is told so
// once, and a reply in that notice's thread says when the bot sees again. "Sees" is the one notion of freshness the
// lease already uses (ClusterWatcher.current: every watch synced and heard from lately, the API answering), or any
// replica holding the evaluator lease (a holder is current by construction), so a blind standby next to a seeing
// holder stays quiet.
// One notice across replicas and crashes, the way roots are posted (src/notify/steps/post-root.ts): `<prefix>:blind`
// is claimed (SET NX) before the post and holds "posting:<claimed at>:<blind since>" until it holds the notice's ts.
// The notice carries metadata naming its outage, so a claim left by a post whose answer was lost, or by a replica
// that died between Slack's answer and the write, is taken over (by that replica at once, by another once the claim
// is CLAIM_STALE_MS old) and the notice looked up in the channel before anything is posted again. Whoever sees first
// takes the key away (compare-and-delete) and replies in the notice's thread.
// The open roots say so too: the replica that claims the notice marks every open incident stale (its root gets a
// "stale since" line through the notifier's own steps, src/notify/stale.ts), and a replica that sees again after
// being blind (or at its first tick, after a restart) clears the marks.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { escapeSlack } from '../render/escape.js';
import { slackDate } from '../render/slack-blocks.js';
import { type SlackApi, incidentMetadata } from '../slack/api.js';
import { redisDown } from '../store/ride-out.js';

/** How old another replica's claim must be before it is taken over (its post may still be on its way). */
export const CLAIM_STALE_MS = 60_000;
const CLAIM = /^posting:(\d+):(\d+)$/;
const SLACK_TS = /^\d+\.\d+$/;
// Replaces (or, with no ARGV[2], deletes) the key's value only when it is still ARGV[1].
const SWAP = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('DEL', KEYS[1]) end
return 1`;

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

/** A claim on the notice: when it was claimed, and since when the bot is blind (which names the notice). */
interface Claim {
  at: number;
  since: number;
}

/** The metadata key of the notice for the outage blind since `since` (message metadata, like an incident root). */
export function noticeKey(prefix: string, since: number): string {
  return `dead-man/${prefix}@${since}`;
}

/** Called on every serve tick with whether the cluster is seen; posts or clears the notice. */
export class DeadMan {
  private blindSince: number | undefined;
  // Whether roots may carry a stale mark this replica has not cleared: after being blind, and at start (a replica
  // that died blind left them marked).
  private mayBeStale = true;
  // The claim this replica wrote last: one it may take over at once (its own post failed or was interrupted).
  private mine: string | undefined;

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
      if (now - this.blindSince >= this.o.afterMs) await this.notice(this.blindSince, now);
    } catch (e) {
      // Redis away is logged once by the connection (redis.ts), not once per tick here.
      if (!redisDown(e)) this.o.log.warn({ err: e }, 'dead-man notice failed; retried next tick');
    }
  }

  private where(): string {
    return this.o.cluster ? ` *${escapeSlack(this.o.cluster)}*` : '';
  }

  // Claims the notice (or takes over an interrupted claim), then finds or posts it and records its ts.
  private async notice(blindSince: number, now: number): Promise<void> {
    const claim = await this.claim(blindSince, now);
    if (!claim) return; // posted already, or being posted by another replica
    const { value, since, lookUp } = claim;
    this.mine = value;
    await this.o.roots?.markStale(since);
    const key = noticeKey(this.o.prefix, since);
    const found = lookUp ? await this.o.slack.findRootByIncidentKey(this.o.channel, key) : undefined;
    const ts = found ?? (await this.post(since, key));
    if (await this.swap(value, ts)) {
      this.o.log.warn(
        { ts, since, adopted: found !== undefined },
        'dead-man notice posted: the bot cannot see the cluster',
      );
    }
    this.mine = undefined;
  }

  private async post(since: number, key: string): Promise<string> {
    const text =
      `:warning: The bot cannot see the cluster${this.where()} since ${slackDate(since)} ` +
      '(API server unreachable, or its watches not synced or stalled). Until it sees again, incident messages ' +
      'may be stale and new incidents are not reported: check the cluster yourself.';
    return (await this.o.slack.postMessage({ channel: this.o.channel, text, metadata: incidentMetadata(key) })).ts;
  }

  // A new claim (nothing there), or a claim taken over (ours, or another's gone stale): its notice may be in Slack.
  private async claim(
    blindSince: number,
    now: number,
  ): Promise<{ value: string; since: number; lookUp: boolean } | undefined> {
    const fresh = `posting:${now}:${blindSince}`;
    if ((await this.o.redis.set(this.key, fresh, 'NX')) === 'OK')
      return { value: fresh, since: blindSince, lookUp: false };
    const held = await this.o.redis.get(this.key);
    const c = held ? parseClaim(held) : undefined;
    if (!held || !c || !this.mayTake(held, c, now)) return undefined;
    const value = `posting:${now}:${c.since}`;
    return (await this.swap(held, value)) ? { value, since: c.since, lookUp: true } : undefined;
  }

  private mayTake(held: string, c: Claim, now: number): boolean {
    return held === this.mine || now - c.at >= CLAIM_STALE_MS;
  }

  private async swap(from: string, to?: string): Promise<boolean> {
    return (await this.o.redis.eval(SWAP, 1, this.key, from, ...(to ? [to] : []))) === 1;
  }

  private async unmarkRoots(): Promise<void> {
    if (!this.mayBeStale || !this.o.roots) return;
    await this.o.roots.markStale(undefined);
    this.mayBeStale = false;
  }

  // Takes the notice away (once, across replicas) and replies in its thread; a claim another replica is still
  // posting is left to it (its next tick replies), an interrupted one is looked up.
  private async clear(now: number): Promise<void> {
    const held = await this.o.redis.get(this.key);
    if (!held) return;
    const c = parseClaim(held);
    if (c ? !this.mayTake(held, c, now) : !SLACK_TS.test(held)) return;
    if (!(await this.swap(held))) return;
    this.mine = undefined;
    const ts = c ? await this.o.slack.findRootByIncidentKey(this.o.channel, noticeKey(this.o.prefix, c.since)) : held;
    if (!ts) return; // the interrupted post never reached Slack: nothing to answer
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

function parseClaim(v: string): Claim | undefined {
  const m = CLAIM.exec(v);
  return m ? { at: Number(m[1]), since: Number(m[2]) } : undefined;
}
