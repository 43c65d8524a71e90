// `rwx capture`: the live cluster written as a file `--snapshot` reads, so an incident can be analysed offline or
// attached to a ticket. Read-only (lists and access reviews), the same kinds, reads and access checks as the read
// commands; no Secret is read, credential env values in pod templates are withheld (src/kube/capture.ts). The file goes to
// stdout, what could not be captured to stderr.
import { systemClock } from '../domain/clock.js';
import { KINDS, KIND_KEYS, type KindKey } from '../domain/kinds.js';
import type { UnreadableKind } from '../domain/snapshot.js';
import { checkAccess, type AccessResult } from '../kube/access.js';
import { writeCapture } from '../kube/capture.js';
import type { ApiConnection } from '../kube/connect.js';
import { parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { READ_KINDS } from './read-kinds.js';
import { accessChecks, loadSource } from './source.js';

const HELP = helpText(
  'capture',
  `Reads the cluster as the read commands do (the same lists, the same access reviews) and writes it to stdout as
one file that --snapshot reads: rwx capture > incident.json, then rwx triage --snapshot incident.json (or scan,
drain-check, diff, policy) answers as the cluster did. The file starts with a header naming the server, the
context and the capture time, and the kinds it lacks with the reason (forbidden, not asked for); readers of the
file report those kinds as not read. No Secret is read; a literal env value in a pod template whose name says it
is a credential (PASSWORD, SECRET, TOKEN, API_KEY, ACCESS_KEY, PRIVATE_KEY, CREDENTIAL, AUTH) is replaced by a
fingerprint (equal values stay equal). Read the file before you attach it anywhere: other env values, command
lines, labels and annotations are kept. --for COMMAND captures only what that command reads.`,
);

/** Runs `rwx capture`. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, FLAGS.capture);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const only = values.for as keyof typeof READ_KINDS | undefined;
  const kinds: readonly KindKey[] = only ? READ_KINDS[only] : KIND_KEYS;
  let reviews: Promise<AccessResult[]> | undefined;
  const onConnect = (conn: ApiConnection, namespace: string | undefined) => {
    reviews = checkAccess(conn, accessChecks(kinds, namespace));
    reviews.catch(() => undefined); // awaited below; a failed list must not leave it unhandled
  };
  const source = await loadSource(values, io, { kinds, onConnect, command: 'capture' });
  const access = (await reviews) ?? [];
  const { snapshot, conn, namespace } = source;
  snapshot.unreadable = snapshot.unreadable.map((u) => missingReason(u, kinds.includes(u.kind), access, only));
  const capturedAt = new Date((io.clock ?? systemClock).now()).toISOString();
  writeCapture(
    snapshot,
    { capturedAt, server: conn?.server ?? '', context: conn?.context ?? '', ...(namespace ? { namespace } : {}) },
    (s) => io.stdout.write(s),
  );
  const lost = snapshot.unreadable.filter((u) => kinds.includes(u.kind));
  for (const u of lost)
    io.stderr.write(
      `rwx capture: warning: ${KINDS[u.kind].resource} not captured (${u.reason}); the file lacks them\n`,
    );
  const objects = kinds.reduce((n, k) => n + snapshot[k].length, 0);
  io.stderr.write(
    `rwx capture: ${objects} objects of ${kinds.length - lost.length} kinds from ${conn?.server} at ${capturedAt}\n`,
  );
  return lost.length > 0 ? 5 : 0;
};

/** Why a kind is not in the file: not asked for (--for), else the list's reason and what the access review said. */
function missingReason(
  u: UnreadableKind,
  asked: boolean,
  access: readonly AccessResult[],
  only: string | undefined,
): UnreadableKind {
  if (!asked) return { kind: u.kind, reason: `not captured (rwx capture --for ${only})` };
  const review = access.find((a) => a.kind === u.kind && a.allowed === false);
  return review?.reason ? { kind: u.kind, reason: `${u.reason}; access review: ${review.reason}` } : u;
}
