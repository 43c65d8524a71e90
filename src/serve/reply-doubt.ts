// Thread replies after Redis lost writes. Each reply carries a stable id in its metadata, and the record says which
// ones were posted (post-reply.ts marks an id before posting it). A Redis failover can lose the last writes
// (asynchronous replication): the record then says a reply was never posted that was, and the step posts it again,
// with the same id. So for a while after the connection to Redis came back, a reply is looked up by its id before
// it is posted (one conversations.replies call), and one already in the thread is not posted twice.
import type { SlackApi } from '../slack/api.js';
import { withPost } from '../slack/with-post.js';

/** How long after Redis came back replies are looked up first: longer than a job waits (group interval). */
export function doubtWindowMs(groupIntervalMs: number): number {
  return Math.max(10 * 60_000, 2 * groupIntervalMs);
}

/** `slack` whose thread replies are looked up before posting while in doubt, and the way to start a doubt. */
export function doubtfulReplies(
  slack: SlackApi,
  now: () => number = Date.now,
): { slack: SlackApi; doubt(forMs: number): void } {
  let until = 0;
  return {
    doubt: (forMs) => void (until = Math.max(until, now() + forMs)),
    slack: withPost(slack, async (args) => {
      const p = args.metadata?.event_payload as { key?: unknown; reply?: unknown } | undefined;
      if (now() < until && args.threadTs && typeof p?.key === 'string' && typeof p.reply === 'string') {
        const ts = await slack.findThreadReply(args.channel, args.threadTs, p.key, p.reply);
        if (ts) return { ts, channel: args.channel };
      }
      return slack.postMessage(args);
    }),
  };
}
