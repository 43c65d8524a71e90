// Finding the agent on a node through the API: the pod carrying the agent label on that node, its IP and the
// port of its container port named "agent". Read-only (one pod list with label and field selectors).
import { AGENT_ENABLE_HINT } from '../domain/proof.js';
import { RwxError } from '../errors.js';
import type { ApiConnection } from '../kube/connect.js';
import { notAList } from '../kube/discovery.js';
import { apiError } from '../kube/read.js';
import { reportUrl } from './client.js';
import { AGENT_PORT } from './server.js';

/**
 * The labels every agent pod carries, from deploy/components/agent and the Helm chart alike: how the bot finds
 * agents among the pods it reads.
 */
export const AGENT_LABELS: Readonly<Record<string, string>> = {
  'app.kubernetes.io/name': 'rwx',
  'app.kubernetes.io/component': 'agent',
};
/** Whether a pod carries every AGENT_LABELS label. */
export function isAgentPod(pod: { metadata?: { labels?: Record<string, string> | null } | null }): boolean {
  return Object.entries(AGENT_LABELS).every(([k, v]) => pod.metadata?.labels?.[k] === v);
}

/** AGENT_LABELS as a label selector. */
export const AGENT_SELECTOR = Object.entries(AGENT_LABELS)
  .map(([k, v]) => `${k}=${v}`)
  .join(',');
/** The name of the agent's port in deploy/components/agent; otherwise the first port of the "agent" container. */
export const AGENT_PORT_NAME = 'agent';
/** Where to read how to enable the agent (the same line the thread says). */
export const ENABLE_HINT = AGENT_ENABLE_HINT;

/** An agent pod as the bot needs it. */
export interface AgentPod {
  namespace: string;
  name: string;
  uid?: string;
  /** The node it runs on (spec.nodeName). */
  node?: string;
  phase: string;
  ready: boolean;
  podIP?: string;
  port: number;
}

interface PodLike {
  metadata?: {
    namespace?: string;
    name?: string;
    uid?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
  };
  spec?: { nodeName?: string; containers?: { name?: string; ports?: { name?: string; containerPort?: number }[] }[] };
  status?: { phase?: string; podIP?: string; conditions?: { type?: string; status?: string }[] };
}

/** The agent fields of a pod object. Pure. */
export function agentPodOf(o: unknown): AgentPod {
  const p = o as PodLike;
  const containers = p.spec?.containers ?? [];
  const port =
    containers.flatMap((c) => c.ports ?? []).find((x) => x.name === AGENT_PORT_NAME) ??
    containers.find((c) => c.name === 'agent')?.ports?.[0];
  const pod: AgentPod = {
    namespace: p.metadata?.namespace ?? '',
    name: p.metadata?.name ?? '',
    phase: p.metadata?.deletionTimestamp ? 'Terminating' : (p.status?.phase ?? 'Unknown'),
    ready: (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    port: port?.containerPort ?? AGENT_PORT,
  };
  if (p.metadata?.uid) pod.uid = p.metadata.uid;
  if (p.spec?.nodeName) pod.node = p.spec.nodeName;
  if (p.status?.podIP) pod.podIP = p.status.podIP;
  return pod;
}

/** The best agent pod among several on one node: serving ones first, then Running, then any. Pure. */
export function pickAgentPod(pods: AgentPod[]): AgentPod | undefined {
  const rank = (p: AgentPod) => (p.phase === 'Running' && p.podIP ? (p.ready ? 0 : 1) : 2);
  return [...pods].sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : 1))[0];
}

/** Where a node's agent answers: a URL (and its pod), no agent at all, or an agent pod that does not serve yet. */
export type AgentTarget =
  { kind: 'agent'; url: string; pod?: string } | { kind: 'no-agent' } | { kind: 'not-serving'; reason: string };

/**
 * Where the best of a node's agent pods answers (pickAgentPod): the one rule of the bot (over the pods it watches)
 * and the CLI (over the pods it lists), so both say the same of an agent that is not serving.
 */
export function agentTarget(pods: readonly AgentPod[]): AgentTarget {
  const pod = pickAgentPod([...pods]);
  if (!pod) return { kind: 'no-agent' };
  const name = `${pod.namespace}/${pod.name}`;
  if (pod.phase !== 'Running' || !pod.podIP) {
    const state = pod.podIP ? pod.phase : `${pod.phase} with no pod IP`;
    const where = pod.node ? ` on node ${pod.node}` : '';
    return { kind: 'not-serving', reason: `the rwx agent pod ${name}${where} is ${state}: not serving a report yet` };
  }
  return { kind: 'agent', url: reportUrl(pod.podIP, pod.port), pod: name };
}

/** The agent pods of the cluster (one list, every namespace), or of `node` only. Throws KUBE_* on API failures. */
export async function listAgentPods(conn: ApiConnection, node?: string): Promise<AgentPod[]> {
  const q = new URLSearchParams({
    labelSelector: AGENT_SELECTOR,
    ...(node ? { fieldSelector: `spec.nodeName=${node}` } : {}),
  });
  const res = await conn.request('GET', `/api/v1/pods?${q}`);
  if (res.status !== 200) throw apiError(conn, res.status, res.body, 'list agent pods');
  const items = (res.body as { items?: unknown[] } | undefined)?.items;
  if (!Array.isArray(items))
    throw notAList(new RwxError('KUBE_API', `list agent pods: answer from ${conn.server} is not a list`));
  return items.map(agentPodOf);
}

/** Whether the node exists: true, false (404), or undefined when the API would not say (403). */
export async function nodeExists(conn: ApiConnection, node: string): Promise<boolean | undefined> {
  const res = await conn.request('GET', `/api/v1/nodes/${encodeURIComponent(node)}`);
  if (res.status === 200) return true;
  if (res.status === 404) return false;
  if (res.status === 403) return undefined;
  throw apiError(conn, res.status, res.body, `get node ${node}`);
}
