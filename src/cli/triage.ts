// `rwx triage`: classify every ReadWriteMany claim by strand (the successor of the seed's rwx_triage.py).
// Thin: flags, source, index, triage, render. Exit 0 nothing needs attention, 2 something does, 1 error.
import { ClusterIndex } from '../domain/cluster-index.js';
import { systemClock } from '../domain/clock.js';
import { checkAccess } from '../kube/access.js';
import { NEEDED, needsAttention, renderJson, renderTable, triage } from '../triage/index.js';
import { outputFormat, parseFlags } from './args.js';
import type { Command } from './io.js';
import { SOURCE_FLAGS, SOURCE_HELP, loadSource } from './source.js';

const HELP = `Usage: rwx triage [--snapshot FILE|- | --kubeconfig FILE --context NAME] [-n NS] [--driver NAME] [-o table|json]

Classify every ReadWriteMany claim by failure strand, after a preflight of access, CSIDriver, CSINode and
leader Lease. Read only.

Flags:
${SOURCE_HELP}
  --driver NAME         only claims whose PV (or StorageClass) uses this CSI driver
  -o, --output FORMAT   table (default) or json (schema: docs/triage-json.md)
  -h, --help            this help

Exit codes: 0 nothing needs attention, 2 something does, 1 error.
`;

/** Runs `rwx triage`. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, {
    ...SOURCE_FLAGS,
    driver: { type: 'string' },
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output);
  const kinds = NEEDED.map((n) => n.kind);
  const { snapshot, conn, namespace } = await loadSource(values, io, { kinds });
  const access = conn
    ? await checkAccess(
        conn,
        kinds.map((kind) => (namespace && ['pods', 'pvcs', 'events'].includes(kind) ? { kind, namespace } : { kind })),
      )
    : undefined;
  const report = triage(ClusterIndex.fromSnapshot(snapshot), {
    now: (io.clock ?? systemClock).now(),
    namespace,
    driver: values.driver,
    access,
  });
  io.stdout.write(format === 'json' ? renderJson(report) : renderTable(report));
  return needsAttention(report) ? 2 : 0;
};
