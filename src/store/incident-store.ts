// Where incident records (record.ts) live: Redis in production (redis-store.ts), memory in pure tests
// (test/support/memory-store.ts). test/store/incident-store.contract.test.ts runs the same cases against both.
import type { IncidentRecord, RecordPatch } from './record.js';

/** The incident records, the set of open ones, and a lock per incident. */
export interface IncidentStore {
  /** The record, or undefined. A record written by the previous version is read in the current form. */
  get(key: string): Promise<IncidentRecord | undefined>;
  /** Creates the record if absent (and adds it to the open set); true when this call created it. */
  create(record: IncidentRecord): Promise<boolean>;
  /** Writes the fields the patch names (RecordPatch) of an existing record; false when there is none. */
  patch(key: string, fields: RecordPatch): Promise<boolean>;
  /** Sets `buttons.ack` only if not already set (double clicks keep the first); true when this call set it. */
  setAckIfAbsent(key: string, ack: { user: string; at: number }): Promise<boolean>;
  /** Removes the record, and drops it from the open set. */
  delete(key: string): Promise<void>;
  /** Drops the record from the open set and lets it expire after `ttlMs` (resolved incidents are kept a while). */
  close(key: string, ttlMs: number): Promise<void>;
  /** Keys of records not yet closed. */
  listOpen(): Promise<string[]>;
  /**
   * Takes the per-incident lock for `ttlMs`; resolves with a token, or undefined when someone else holds it. The
   * token names `owner` (lockOwner reads it back), so a restarted process can tell its predecessor's locks.
   */
  tryLock(key: string, ttlMs: number, owner?: string): Promise<string | undefined>;
  /** Releases the lock if `token` still holds it. */
  unlock(key: string, token: string): Promise<void>;
  /** The token holding the incident's lock now, if any. */
  lockToken(key: string): Promise<string | undefined>;
  /**
   * Claims `name` for `owner`, for good (no expiry; it goes only with the store's data): true when `owner` holds it,
   * taken by this call or an earlier one (a retry of the same owner gets the same answer), false when another owner
   * took it first. Something said once per channel is claimed by the incident that says it.
   */
  claimOnce(name: string, owner: string): Promise<boolean>;
}

/** Separates a lock token's owner from its random part: `<version>:<owner>|<uuid>`. Owners hold no '|'. */
const OWNER_END = '|';

/** A lock token for `owner`: what tryLock stores (`version` is the store's layout tag, e.g. "v2:"). */
export function lockTokenFor(version: string, owner: string | undefined, random: string): string {
  return `${version}${owner ? `${owner.replaceAll(OWNER_END, '_')}${OWNER_END}` : ''}${random}`;
}

/** The owner a lock token names (lockTokenFor), or undefined when it names none (an older process's lock). */
export function lockOwner(token: string): string | undefined {
  const body = token.slice(token.indexOf(':') + 1);
  const end = body.lastIndexOf(OWNER_END);
  return end > 0 ? body.slice(0, end) : undefined;
}
