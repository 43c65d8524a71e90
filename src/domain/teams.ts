// Per-team routing (RWX_TEAM_CHANNELS): which team channels an incident also goes to, decided from the namespaces
// of its members, and the keys of the records that follow one incident in one team channel. The incident channel's
// record keeps the incident's own key; a team channel's record is `<incident key>#<channel>` (Kubernetes names and
// Slack channel IDs hold no '#', so the split is unambiguous, in a fleet too: the cluster is still the first part).
import type { Incident } from './incident.js';

/** One entry of RWX_TEAM_CHANNELS. */
export interface TeamRoute {
  /** A namespace name, or a pattern where `*` stands for any run of characters (`payments-*`). */
  namespace: string;
  /** The team's channel ID (C... or G...). */
  channel: string;
  /** The user group (S...) a new root in the team's channel mentions. */
  usergroup?: string;
}

const SEP = '#';

/** The key of the record that follows incident `incidentKey` in team channel `channel`. */
export function channelKey(incidentKey: string, channel: string): string {
  return `${incidentKey}${SEP}${channel}`;
}

/** The incident key and, for a team channel's record, its channel. */
export function splitChannelKey(key: string): { incident: string; channel?: string } {
  const i = key.lastIndexOf(SEP);
  return i <= 0 ? { incident: key } : { incident: key.slice(0, i), channel: key.slice(i + 1) };
}

/** Whether `key` is a team channel's record (not an incident's own). */
export function isChannelKey(key: string): boolean {
  return splitChannelKey(key).channel !== undefined;
}

/**
 * The entry a namespace belongs to: an exact name wins; else, of the patterns that match, the one with the most
 * characters besides `*` (the most specific), the first listed among equals. One namespace, one team: a namespace
 * never sends its incidents to two team channels.
 */
export function teamOf(namespace: string, routes: readonly TeamRoute[]): TeamRoute | undefined {
  const exact = routes.find((r) => r.namespace === namespace);
  if (exact) return exact;
  let best: TeamRoute | undefined;
  for (const r of routes) {
    if (!r.namespace.includes('*') || !globMatches(r.namespace, namespace)) continue;
    if (!best || literalLength(r.namespace) > literalLength(best.namespace)) best = r;
  }
  return best;
}

/** The namespaces of an incident's members (stuck pods, CronJobs, affected workloads), sorted, each once. */
export function memberNamespaces(incident: Incident): string[] {
  const all = [
    ...incident.pods.map((p) => p.pod.namespace),
    ...incident.cronJobs.map((c) => c.cronJob.namespace),
    ...incident.workloads.map((w) => w.namespace),
  ];
  return [...new Set(all)].sort();
}

/** The team channels an incident goes to, from its members' namespaces: sorted, each once. */
export function teamChannelsOf(incident: Incident, routes: readonly TeamRoute[]): string[] {
  if (routes.length === 0) return [];
  const channels = memberNamespaces(incident)
    .map((ns) => teamOf(ns, routes)?.channel)
    .filter((c): c is string => c !== undefined);
  return [...new Set(channels)].sort();
}

/** The user group a new root in `channel` mentions (configuration keeps it to one per channel). */
export function usergroupOf(channel: string, routes: readonly TeamRoute[]): string | undefined {
  return routes.find((r) => r.channel === channel && r.usergroup !== undefined)?.usergroup;
}

function literalLength(pattern: string): number {
  return pattern.replaceAll('*', '').length;
}

// `*` matches any run of characters; nothing else is special (a namespace pattern holds only [-a-z0-9*]).
function globMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const i = name.indexOf(part, at);
    if (i < 0 || i + part.length > end) return false;
    at = i + part.length;
  }
  return true;
}
