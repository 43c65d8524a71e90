// Thread links for /rwx status: chat.getPermalink answers with the workspace's own URL (the one that opens the app
// on a phone), and never changes for a message, so each thread's link is asked for once and kept.
import type { SlackApi } from '../slack/api.js';

/** Threads whose link is kept at most; the oldest is forgotten first. */
export const PERMALINK_CACHE_SIZE = 1000;

/** A thread's permalink, or undefined when Slack would not give one (the caller falls back to an archive link). */
export type PermalinkSource = (channel: string, ts: string) => Promise<string | undefined>;

/**
 * chat.getPermalink per thread, cached by channel and ts. A failure is not cached (the next /rwx status asks
 * again) and never fails the command: /rwx status still answers, with the constructed link.
 */
export function cachedPermalinks(slack: Pick<SlackApi, 'permalink'>, size = PERMALINK_CACHE_SIZE): PermalinkSource {
  const kept = new Map<string, string>();
  return async (channel, ts) => {
    const key = `${channel}/${ts}`;
    const hit = kept.get(key);
    if (hit !== undefined) return hit;
    let link: string;
    try {
      link = await slack.permalink(channel, ts);
    } catch {
      return undefined;
    }
    kept.set(key, link);
    if (kept.size > size) kept.delete(kept.keys().next().value!);
    return link;
  };
}
