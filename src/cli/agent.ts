// `rwx agent`: the node agent. Thin: flags, then one scan to stdout (--once) or the HTTP server until SIGTERM.
import { hostname } from 'node:os';
import { systemClock } from '../domain/clock.js';
import { RwxError } from '../errors.js';
import { reportNeedsAttention } from '../detect/node-findings.js';
import { AgentMetrics } from '../agent/metrics.js';
import { renderReport } from '../render/terminal-node.js';
import { scanNode, type ScanOptions } from '../agent/scan.js';
import { AGENT_PORT, agentHandler, ReportCache } from '../agent/server.js';
import { agentVersion } from '../agent/version.js';
import { closeServer, listen } from '../serve/http.js';
import { numberValue, outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { writeDocument } from './output.js';

const HELP = helpText(
  'agent',
  `The node agent (docs/agent.md). Reads, never writes: every process's mount namespace (/proc/PID/ns/mnt, one
/proc/PID/mountinfo per namespace), the host's mountinfo, and the kubelet directory's CSI staging and pod volume
directories by name. Reports CSI mounts the host cannot see (propagation lost), staged volumes and their pod bind
mounts (orphaned stage references), and network volume mount options. Holds no credentials, calls no API.
Without --once it serves GET /report, /healthz and /metrics. --host-root is /host under kubectl debug node/NODE.`,
);

/** Reports are rescanned at most this often when served. */
const MAX_AGE_MS = 5000;

/** Runs `rwx agent` (until a signal, or `stopSignal` for in-process tests). */
export async function runAgent(
  argv: string[],
  io: Parameters<Command>[1],
  stopSignal?: Promise<void>,
): Promise<number> {
  const { values } = parseFlags(argv, FLAGS.agent);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output, FLAGS.agent.output.check.values);
  if (!values.once && values.output !== undefined)
    throw new RwxError('USAGE', '-o applies to --once; the server answers JSON on /report');
  if (values.once && values.port !== undefined)
    throw new RwxError('USAGE', '--port applies to the server, not to --once');
  const clock = io.clock ?? systemClock;
  const opts: ScanOptions = {
    procDir: values.proc ?? '/proc',
    kubeletDir: values['kubelet-dir'] ?? '/var/lib/kubelet',
    hostRoot: values['host-root'] ?? '/',
    hostPid: numberValue(values['host-pid']) ?? 1,
    node: values.node || io.env.NODE_NAME || hostname(),
    agentVersion: agentVersion(),
    clock,
  };
  if (values.once) {
    const report = await scanNode(opts);
    if (format === 'json' || format === 'yaml') await writeDocument(io, format, report);
    else io.stdout.write(renderReport(report));
    return reportNeedsAttention(report) ? 2 : 0;
  }
  const port = numberValue(values.port) ?? AGENT_PORT;
  const metrics = new AgentMetrics();
  const cache = new ReportCache(() => scanNode(opts), clock, MAX_AGE_MS, metrics);
  const { server, port: bound } = await listen(agentHandler(cache, metrics), port);
  io.stderr.write(`rwx agent: node ${opts.node}, serving GET /report, /healthz, /metrics on port ${bound}\n`);
  await (stopSignal ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }));
  await closeServer(server);
  return 0;
}

/** Entry point for `rwx agent`. */
export const run: Command = (argv, io) => runAgent(argv, io);
