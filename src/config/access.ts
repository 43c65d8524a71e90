// Who may use /rwx, decided from the loaded config. Pure: the slash-command handler fetches the user's groups
// (usergroups.users.list) only when allowedUsergroups is non-empty, then asks here.
import type { Config } from './schema.js';

/** The access part of Config. */
export type Access = Config['access'];

/** Whether /rwx may answer in this channel: listed by ID or by name ('#' optional), or the list is ['*']. */
export function isChannelAllowed(access: Access, channelId: string, channelName?: string): boolean {
  const name = channelName?.replace(/^#/, '');
  return access.allowedChannels.some((c) => c === '*' || c === channelId || (name !== undefined && c === name));
}

/** Whether the user's group memberships are needed at all (false: every user in an allowed channel may ask). */
export function needsUsergroupCheck(access: Access): boolean {
  return access.allowedUsergroups.length > 0;
}

/** Whether a user who belongs to `userGroupIds` may use /rwx (always true when no groups are configured). */
export function isUserAllowed(access: Access, userGroupIds: Iterable<string>): boolean {
  if (!needsUsergroupCheck(access)) return true;
  for (const g of userGroupIds) if (access.allowedUsergroups.includes(g)) return true;
  return false;
}
