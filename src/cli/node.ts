// `rwx node NODE`: the node agent's report for NODE, rendered. Finds the agent pod on NODE through the API (by
// label) and fetches /report from its pod IP, or reads the report at --agent-url (a port-forward, say).
import { RwxError } from '../errors.js';
import { fetchReport, REPORT_TIMEOUT_MS } from '../agent/client.js';
import { reportNeedsAttention } from '../detect/node-findings.js';
import { AGENT_SELECTOR, ENABLE_HINT, agentTarget, listAgentPods, nodeExists } from '../agent/locate.js';
import { renderReport } from '../render/terminal-node.js';
import { isValidName } from '../commands/names.js';
import { openApi } from '../kube/connect.js';
import { rethrowChecked } from '../kube/discovery.js';
import { durationValue, outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { writeDocument } from './output.js';
import { readPatience } from './source.js';

const HELP = helpText(
  'node',
  `The node agent's report for NODE (docs/agent.md): CSI mounts the host cannot see (propagation lost), staged
volumes with no pod bind mount (orphaned stage references), network volume mount options. Exit 2 also when the
agent could not read everything. --agent-url takes e.g. http://127.0.0.1:9743 after
kubectl -n rwx-agent port-forward pod/rwx-agent-xxxxx 9743.`,
);

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
  const { values, positionals } = parseFlags(argv, FLAGS.node, true);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const [node, ...extra] = positionals;
  if (!node || extra.length > 0) throw new RwxError('USAGE', 'expected exactly one NODE');
  if (!isValidName('node', node)) throw new RwxError('USAGE', `"${node}" is not a valid node name`);
  const format = outputFormat(values.output, FLAGS.node.output.check.values);
  const timeoutMs = durationValue(values.timeout, '--timeout') ?? REPORT_TIMEOUT_MS;

  let url: string;
  let source: string;
  if (values['agent-url'] !== undefined) {
    if (['kubeconfig', 'context', 'request-timeout'].some((f) => f in values))
      throw new RwxError(
        'USAGE',
        '--agent-url reads the agent directly; it cannot be combined with --kubeconfig, --context or --request-timeout',
      );
    url = normalizeAgentUrl(values['agent-url']);
    source = url;
  } else {
    const patience = readPatience(values['request-timeout'], io, 'node');
    const conn = await openApi({ kubeconfig: values.kubeconfig, context: values.context, env: io.env, patience });
    // Pods are served by every API server: a 404 means the server is not one (said in one line), else it stands.
    const pods = await listAgentPods(conn, node).catch((e: unknown) => rethrowChecked(conn, e));
    const target = agentTarget(pods);
    if (target.kind === 'no-agent') {
      const exists = await nodeExists(conn, node);
      if (exists === false) throw new RwxError('NOT_FOUND', `node "${node}" not found`);
      const msg = `no rwx agent runs on node ${node} (no pod labelled ${AGENT_SELECTOR} there), so there is no report from it`;
      throw new RwxError('AGENT_MISSING', `${msg}: ${ENABLE_HINT}`);
    }
    if (target.kind === 'not-serving') throw new RwxError('AGENT_UNREACHABLE', target.reason);
    url = target.url;
    source = `pod ${target.pod} (${url})`;
  }
  const { report, note } = await fetchReport(url, { timeoutMs });
  if (report.node !== node)
    throw new RwxError(
      'AGENT_REPORT',
      `the agent at ${url} reports node ${report.node}, not ${node}: is --agent-url pointing at the right pod?`,
    );
  if (note) io.stderr.write(`rwx node: ${note}\n`);
  if (format === 'json' || format === 'yaml') await writeDocument(io, format, report);
  else io.stdout.write(renderReport(report, { node }, source));
  return reportNeedsAttention(report) ? 2 : 0;
};
