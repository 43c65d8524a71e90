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
import { outputFormat, parseFlags } from './args.js';
import type { Command } from './io.js';

const HELP = `Usage: rwx agent [--once [-o text|json]] [--port N] [--kubelet-dir DIR] [--host-pid N] [--proc DIR] [--host-root DIR]

The node agent (docs/agent.md). Reads, never writes: every process's mount namespace (/proc/PID/ns/mnt, one
/proc/PID/mountinfo per namespace), the host's mountinfo, and the kubelet directory's CSI staging and pod volume
directories by name. Reports CSI mounts the host cannot see (propagation lost), staged volumes and their pod bind
mounts (orphaned stage references), and network volume mount options. Holds no credentials, calls no API.

  --once              scan once, print the report and exit (0 nothing needs attention, 2 something does)
  -o, --output FMT    with --once: text (default) or json (the /report document)
  --port N            without --once: serve GET /report, /healthz, /metrics on port N (default ${AGENT_PORT})
  --kubelet-dir DIR   the kubelet's root directory as the host names it (default /var/lib/kubelet)
  --host-pid N        a process in the host's mount namespace (default 1; needs hostPID)
  --proc DIR          the proc filesystem to read (default /proc)
  --host-root DIR     where the host's / is mounted, for reading the kubelet dir (default /; /host under
                      kubectl debug node/NODE)
  --node NAME         the node name in the report (default: NODE_NAME, else the hostname)
`;

/** Reports are rescanned at most this often when served. */
const MAX_AGE_MS = 5000;

function integer(v: string | undefined, flag: string, min: number, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > 4_194_304)
    throw new RwxError('USAGE', `${flag} must be a whole number >= ${min} (got "${v}")`);
  return n;
}

/** Runs `rwx agent` (until a signal, or `stopSignal` for in-process tests). */
export async function runAgent(
  argv: string[],
  io: Parameters<Command>[1],
  stopSignal?: Promise<void>,
): Promise<number> {
  const { values } = parseFlags(argv, {
    once: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    port: { type: 'string' },
    'kubelet-dir': { type: 'string' },
    'host-pid': { type: 'string' },
    proc: { type: 'string' },
    'host-root': { type: 'string' },
    node: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output, ['text', 'json']);
  if (!values.once && values.output !== undefined)
    throw new RwxError('USAGE', '-o applies to --once; the server answers JSON on /report');
  if (values.once && values.port !== undefined)
    throw new RwxError('USAGE', '--port applies to the server, not to --once');
  const clock = io.clock ?? systemClock;
  const opts: ScanOptions = {
    procDir: values.proc ?? '/proc',
    kubeletDir: values['kubelet-dir'] ?? '/var/lib/kubelet',
    hostRoot: values['host-root'] ?? '/',
    hostPid: integer(values['host-pid'], '--host-pid', 1, 1),
    node: values.node || io.env.NODE_NAME || hostname(),
    agentVersion: agentVersion(),
    clock,
  };
  if (values.once) {
    const report = await scanNode(opts);
    io.stdout.write(format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    return reportNeedsAttention(report) ? 2 : 0;
  }
  const port = integer(values.port, '--port', 0, AGENT_PORT);
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
