// `rwx node NODE`: the node agent's report for NODE, rendered. Finds the agent pod on NODE through the API (by
// label) and fetches /report from its pod IP, or reads the report at --agent-url (a port-forward, say).
import { RwxError } from '../errors.js';
import { fetchReport, reportUrl, REPORT_TIMEOUT_MS } from '../agent/client.js';
import { reportNeedsAttention } from '../detect/node-findings.js';
import { AGENT_SELECTOR, ENABLE_HINT, findAgentPod, nodeExists } from '../agent/locate.js';
import { renderReport } from '../render/terminal-node.js';
import { isValidName } from '../commands/names.js';
import { parseDuration } from '../domain/duration.js';
import { connect } from '../kube/connect.js';
import { outputFormat, parseFlags } from './args.js';
import type { Command } from './io.js';

const HELP = `Usage: rwx node NODE [--kubeconfig FILE] [--context NAME] [--agent-url URL] [-o text|json] [--timeout 5s]

The node agent's report for NODE (docs/agent.md): CSI mounts the host cannot see (propagation lost), staged
volumes with no pod bind mount (orphaned stage references), network volume mount options. Exit 0 nothing needs
attention, 2 something does (or the agent could not read everything), 1 error (no agent on NODE, unreachable).

  --kubeconfig FILE   kubeconfig to use (default: KUBECONFIG, ~/.kube/config, then in-cluster)
  --context NAME      kubeconfig context to use
  --agent-url URL     read the report here instead of the agent pod's IP (e.g. http://127.0.0.1:9743 after
                      kubectl -n rwx-agent port-forward pod/rwx-agent-xxxxx 9743); the API is not used
  -o, --output FMT    text (default) or json (the agent's report as validated)
  --timeout DURATION  how long to wait for the agent (default 5s)
`;

/** The report URL for --agent-url: a bare base URL gets /report. */
function normalizeAgentUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new RwxError('USAGE', `--agent-url "${raw}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RwxError('USAGE', '--agent-url must be http(s)');
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/report';
  return u.toString();
}

/** Runs `rwx node`. */
export const run: Command = async (argv, io) => {
  const { values, positionals } = parseFlags(
    argv,
    {
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      'agent-url': { type: 'string' },
      output: { type: 'string', short: 'o' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const [node, ...extra] = positionals;
  if (!node || extra.length > 0) throw new RwxError('USAGE', 'expected exactly one NODE');
  if (!isValidName('node', node)) throw new RwxError('USAGE', `"${node}" is not a valid node name`);
  const format = outputFormat(values.output, ['text', 'json']);
  const timeoutMs = values.timeout === undefined ? REPORT_TIMEOUT_MS : parseDuration(values.timeout, '--timeout');
  if (!(timeoutMs > 0)) throw new RwxError('USAGE', `--timeout must be a positive duration (got "${values.timeout}")`);

  let url: string;
  let source: string;
  if (values['agent-url'] !== undefined) {
    if (values.kubeconfig !== undefined || values.context !== undefined)
      throw new RwxError(
        'USAGE',
        '--agent-url reads the agent directly; it cannot be combined with --kubeconfig or --context',
      );
    url = normalizeAgentUrl(values['agent-url']);
    source = url;
  } else {
    const conn = await connect({ kubeconfig: values.kubeconfig, context: values.context, env: io.env });
    const pod = await findAgentPod(conn, node);
    if (!pod) {
      const exists = await nodeExists(conn, node);
      if (exists === false) throw new RwxError('NOT_FOUND', `node "${node}" not found`);
      const msg = `no rwx agent runs on node ${node} (no pod labelled ${AGENT_SELECTOR} there), so there is no report from it`;
      throw new RwxError('AGENT_MISSING', `${msg}: ${ENABLE_HINT}`);
    }
    if (pod.phase !== 'Running' || !pod.podIP) {
      const state = pod.podIP ? pod.phase : `${pod.phase} with no pod IP`;
      const msg = `the rwx agent pod ${pod.namespace}/${pod.name} on node ${node} is ${state}: not serving a report yet`;
      throw new RwxError('AGENT_UNREACHABLE', msg);
    }
    url = reportUrl(pod.podIP, pod.port);
    source = `pod ${pod.namespace}/${pod.name} (${url})`;
  }
  const { report, note } = await fetchReport(url, { timeoutMs });
  if (report.node !== node)
    throw new RwxError(
      'AGENT_REPORT',
      `the agent at ${url} reports node ${report.node}, not ${node}: is --agent-url pointing at the right pod?`,
    );
  if (note) io.stderr.write(`rwx node: ${note}\n`);
  io.stdout.write(format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, { node }, source));
  return reportNeedsAttention(report) ? 2 : 0;
};
