// `rwx triage`: classify every ReadWriteMany claim by strand.
// Thin: flags, source, index, triage, render. Exit 0 nothing needs attention, 2 something does, 1 error.
import { ClusterIndex } from '../domain/cluster-index.js';
import { systemClock } from '../domain/clock.js';
import { checkAccess, type AccessResult } from '../kube/access.js';
import type { ApiConnection } from '../kube/connect.js';
import { needsAttention, renderJson, renderTable, triage, type TriageReport } from '../triage/index.js';
import { clean } from '../render/terminal-text.js';
import { outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { writeDocument } from './output.js';
import { cliNodeReports } from './node-reports.js';
import { READ_KINDS } from './read-kinds.js';
import { accessChecks, evaluationTime, loadSource } from './source.js';

const HELP = helpText(
  'triage',
  `Classify every ReadWriteMany claim by failure strand, after a preflight of access, CSIDriver, CSINode and
leader Lease. Read only. -o wide adds each claim's storage class, driver, volume and nodes; -o json follows
docs/triage-json.md; -o name prints NAMESPACE/CLAIM of each claim that needs attention, one a line. With
--snapshot, ages are measured against the newest time recorded in the file (the report says so) unless --now
gives one. On the live cluster the node agents (docs/agent.md) are asked too, where they run: a staged volume no
pod uses is STALE_ATTACHMENT evidence, mount options that differ between nodes a finding of their own.`,
);

/** Runs `rwx triage`. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, FLAGS.triage);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output, FLAGS.triage.output.check.values);
  const kinds = READ_KINDS.triage;
  // Live: the access reviews are asked while the lists are read, not after them.
  let reviews: Promise<AccessResult[]> | undefined;
  let live: ApiConnection | undefined;
  const onConnect = (conn: ApiConnection, namespace: string | undefined) => {
    live = conn;
    reviews = checkAccess(conn, accessChecks(kinds, namespace));
    reviews.catch(() => undefined); // awaited below; a failed list must not leave it unhandled
  };
  const source = await loadSource(values, io, { kinds, onConnect, command: 'triage' });
  const { snapshot, namespace } = source;
  const access = await reviews;
  const clockNow = (io.clock ?? systemClock).now();
  const time = evaluationTime(values.now, source, clockNow);
  const nodeReports = await cliNodeReports(live, clockNow);
  const report = triage(ClusterIndex.fromSnapshot(snapshot), {
    now: time.now,
    timeBasis: time.basis,
    namespace,
    driver: values.driver,
    access,
    nodeReports,
  });
  if (format === 'json') io.stdout.write(renderJson(report));
  else if (format === 'yaml') await writeDocument(io, format, JSON.parse(renderJson(report)));
  else if (format === 'name') {
    io.stdout.write(claimNames(report));
    // The names alone cannot say what was not decided; stderr does, as the table would.
    for (const u of report.undecided) io.stderr.write(`rwx triage: ${u}\n`);
  } else io.stdout.write(clean(renderTable(report, { wide: format === 'wide' })));
  return needsAttention(report) ? 2 : 0;
};

/** `-o name`: NAMESPACE/CLAIM of each claim that needs attention, one a line (for xargs and scripts). */
function claimNames(report: TriageReport): string {
  return report.claims
    .filter((c) => c.needsAttention)
    .map((c) => `${c.namespace}/${c.name}\n`)
    .join('');
}
