// The kinds each read command lists, in one table: the commands read them, and `rwx capture --for COMMAND`
// captures them (a file for that command alone). Loads nothing heavy.
import { KIND_KEYS, type KindKey } from '../domain/kinds.js';
import { NEEDED } from '../triage/preflight.js';
import type { READ_COMMAND_NAMES } from './flags.js';

/** A read command's name. */
export type ReadCommand = (typeof READ_COMMAND_NAMES)[number];

/** Kinds listed by each read command (scan and drain-check read every kind). */
export const READ_KINDS = {
  triage: NEEDED.map((n) => n.kind),
  scan: KIND_KEYS,
  'drain-check': KIND_KEYS,
  diff: ['daemonSets', 'controllerRevisions'],
  policy: ['daemonSets'],
} as const satisfies Record<ReadCommand, readonly KindKey[]>;
