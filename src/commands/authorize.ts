// Who may run /rwx. Policy (config keys RWX_ALLOWED_CHANNELS, RWX_ALLOWED_USERGROUPS): the command must come from
// an allowed channel (by ID or name; `*` allows any) AND, when user groups are configured, from a member of one of
// them. Membership comes from usergroups.users.list, cached per group for a TTL so a busy incident channel does
// not hit Slack's rate limits; concurrent look-ups of one group share a single request.
import { isChannelAllowed, isUserAllowed, needsUsergroupCheck } from '../config/access.js';
import type { Clock } from '../domain/clock.js';
import { toRwxError } from '../errors.js';
import { channelMention } from '../render/slack-links.js';

/** The access part of the configuration (Config['access']). */
export interface AccessPolicy {
  /** Channel IDs or names without '#'; ['*'] means any channel; empty means none. */
  allowedChannels: readonly string[];
  /** User group IDs; empty means no group check. */
  allowedUsergroups: readonly string[];
}

/** Members of a Slack user group (usergroups.users.list). Rejects on API errors. */
export interface UsergroupDirectory {
  usersOf(usergroup: string): Promise<readonly string[]>;
}

/** Who asked, and where. */
export interface Requester {
  userId: string;
  channelId: string;
  channelName?: string;
}

/** The decision: allowed, or a refusal with a polite message for the user (mrkdwn, already safe). */
export type AuthDecision =
  { allowed: true } | { allowed: false; reason: 'channel' | 'usergroup' | 'lookup-failed'; message: string };

/** Default time a group's member list is trusted. */
export const USERGROUP_TTL_MS = 5 * 60_000;

/** Caches user group member lists for `ttlMs`; one in-flight request per group. */
export class UsergroupCache {
  private readonly entries = new Map<string, { users: ReadonlySet<string>; at: number }>();
  private readonly inflight = new Map<string, Promise<ReadonlySet<string>>>();

  constructor(
    private readonly directory: UsergroupDirectory,
    private readonly clock: Clock,
    private readonly ttlMs: number = USERGROUP_TTL_MS,
  ) {}

  /** Members of `group`: from the cache when younger than the TTL, else fetched. Rejects (RwxError) on failure. */
  async members(group: string): Promise<ReadonlySet<string>> {
    const hit = this.entries.get(group);
    if (hit && this.clock.now() - hit.at < this.ttlMs) return hit.users;
    let p = this.inflight.get(group);
    if (!p) {
      p = this.directory
        .usersOf(group)
        .then((users) => {
          const set = new Set(users);
          this.entries.set(group, { users: set, at: this.clock.now() });
          return set;
        })
        .finally(() => this.inflight.delete(group));
      this.inflight.set(group, p);
    }
    try {
      return await p;
    } catch (e) {
      throw toRwxError(e, 'SLACK_API');
    }
  }
}

/** Decides whether `req` may run /rwx. Fails closed: when membership cannot be checked, the answer is no. */
export async function authorize(policy: AccessPolicy, cache: UsergroupCache, req: Requester): Promise<AuthDecision> {
  if (!isChannelAllowed(policy, req.channelId, req.channelName)) {
    return { allowed: false, reason: 'channel', message: channelRefusal(policy) };
  }
  if (!needsUsergroupCheck(policy)) return { allowed: true };
  let lookupFailed = false;
  for (const group of policy.allowedUsergroups) {
    try {
      if (isUserAllowed(policy, (await cache.members(group)).has(req.userId) ? [group] : [])) return { allowed: true };
    } catch {
      lookupFailed = true; // another group may still admit the user
    }
  }
  if (lookupFailed) {
    return {
      allowed: false,
      reason: 'lookup-failed',
      message: 'Sorry, I could not check your user group membership with Slack just now. Please try again in a minute.',
    };
  }
  const groups = policy.allowedUsergroups.map((g) => `<!subteam^${g}>`).join(', ');
  return {
    allowed: false,
    reason: 'usergroup',
    message: `Sorry, \`/rwx\` is available to members of ${groups}. Ask one of them, or ask to be added to the group.`,
  };
}

/** The polite refusal for a channel that is not allowed; names the channels where /rwx does answer. */
function channelRefusal(policy: AccessPolicy): string {
  const where = policy.allowedChannels.map(channelMention);
  if (where.length === 0) return 'Sorry, `/rwx` is not enabled in any channel yet (RWX_ALLOWED_CHANNELS).';
  return `Sorry, \`/rwx\` does not answer in this channel. Please use it in ${where.join(', ')}.`;
}
