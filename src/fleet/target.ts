// Which cluster a command is about (pure). In order: the cluster it names (`@prod-eu-1`); status, which lists the
// whole fleet from Redis and so runs where it was received; the channel's default cluster (RWX_CHANNEL_CLUSTERS);
// the only cluster there is; the only cluster that has the node, claim or namespace it names; else a question
// listing the candidates. A cluster that may have the name (it has not published its names, or its list was cut
// short) is a candidate too: a miss there proves nothing, so it is never ruled out on a guess.
import type { ParsedCommand } from '../commands/index.js';
import type { NameSet } from './keys.js';

/** A command that does work (help and usage are answered by whoever receives them). */
export type WorkCommand = Exclude<ParsedCommand, { kind: 'help' | 'usage' }>;

/** Where a command goes, or why it goes nowhere. */
export type Target =
  | { kind: 'cluster'; cluster: string }
  | { kind: 'ask'; candidates: string[]; about?: { what: NameSet; name: string } }
  | { kind: 'unknown-cluster'; name: string; known: string[] }
  | { kind: 'nowhere'; about: { what: NameSet; name: string }; known: string[] };

/** What the routing decision reads. */
export interface TargetInput {
  cmd: WorkCommand;
  /** The cluster that received the command. */
  self: string;
  /** Every cluster of the fleet (with a heartbeat, silent or not), self included. */
  known: readonly string[];
  channelId: string;
  channelName?: string;
  /** RWX_CHANNEL_CLUSTERS: channel ID or name -> cluster. */
  channelClusters: Readonly<Record<string, string>>;
  /** For the name the command names (nameOf), which clusters have it, surely or maybe. */
  having?: { has: readonly string[]; maybe: readonly string[] };
}

/** The node, claim or namespace a command names, which only the clusters that have it can answer. */
export function nameOf(cmd: WorkCommand): { what: NameSet; name: string } | undefined {
  if (cmd.kind === 'drain' || cmd.kind === 'node') return { what: 'nodes', name: cmd.node };
  if (cmd.kind !== 'triage') return undefined;
  const s = cmd.scope;
  if (s.kind === 'node') return { what: 'nodes', name: s.node };
  if (s.kind === 'claim') return { what: 'claims', name: `${s.namespace}/${s.claim}` };
  if (s.kind === 'namespace') return { what: 'namespaces', name: s.namespace };
  return undefined;
}

/** Decides where `cmd` goes. */
export function targetOf(i: TargetInput): Target {
  const known = [...new Set([...i.known, i.self])].sort();
  const { cmd } = i;
  if (cmd.cluster !== undefined)
    return known.includes(cmd.cluster)
      ? { kind: 'cluster', cluster: cmd.cluster }
      : { kind: 'unknown-cluster', name: cmd.cluster, known };
  if (cmd.kind === 'status') return { kind: 'cluster', cluster: i.self };
  const byChannel = i.channelClusters[i.channelId] ?? (i.channelName ? i.channelClusters[i.channelName] : undefined);
  if (byChannel !== undefined) return { kind: 'cluster', cluster: byChannel };
  if (known.length === 1) return { kind: 'cluster', cluster: known[0] ?? i.self };
  const about = nameOf(cmd);
  if (!about || !i.having) return { kind: 'ask', candidates: known };
  const candidates = [...new Set([...i.having.has, ...i.having.maybe])].sort();
  const only = i.having.has[0];
  if (i.having.has.length === 1 && i.having.maybe.length === 0 && only !== undefined)
    return { kind: 'cluster', cluster: only };
  if (candidates.length === 0) return { kind: 'nowhere', about, known };
  return { kind: 'ask', candidates, about };
}
