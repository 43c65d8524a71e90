// What the fleet says about a change it has seen break another cluster: the link in a second cluster's thread,
// and the warning when a cluster starts rolling out that change. Worded for DaemonSets: they have no
// `kubectl rollout pause`; a rollout is stopped with updateStrategy OnDelete, or undone. Every name is escaped.
import { threadLink } from '../commands/render-status.js';
import { formatAge } from '../domain/duration.js';
import { untrusted } from '../render/escape.js';
import type { Sighting } from './sightings.js';

const where = (s: Sighting): string => {
  const link = threadLink({
    ...(s.channel ? { channel: s.channel } : {}),
    ...(s.threadTs ? { threadTs: s.threadTs } : {}),
  });
  return link ? ` (<${link}|its thread>)` : '';
};

/** The reply in a thread whose change broke `first` before: when, what, and what became of it there. */
export function renderLink(first: Sighting, now: number): string {
  const after = first.rolledBack ? 'It was rolled back there.' : 'It is still open there.';
  return (
    `:link: The same change broke *${untrusted(first.cluster, 63)}* ${formatAge(now - first.firstSeenAt)} ago` +
    `${where(first)}: ${untrusted(first.summary, 600)}. ${after}`
  );
}

/** What the warning needs: the cluster rolling out, the DaemonSet, and how to undo it there. */
export interface WarningFacts {
  cluster: string;
  namespace: string;
  name: string;
  revision: number;
  /** `kubectl rollout undo ... --to-revision=N`, when a revision with another template is kept. */
  undo?: string;
}

/** The warning posted when `w.cluster` starts rolling out the change that broke `first`. */
export function renderRolloutWarning(w: WarningFacts, first: Sighting, now: number): string {
  const ds = `${untrusted(w.namespace, 63)}/${untrusted(w.name, 253)}`;
  const name = untrusted(w.name, 253);
  const ns = untrusted(w.namespace, 63);
  const undo = w.undo
    ? `Roll it back now: \`${untrusted(w.undo, 300)}\` (the nodes it reached get their previous node plugin back).`
    : 'No kept revision has another pod template: re-apply the manifest of the last release that mounted.';
  return [
    `:warning: *${untrusted(w.cluster, 63)}* started rolling out the \`${ds}\` change (revision ${w.revision}) that broke ` +
      `*${untrusted(first.cluster, 63)}* ${formatAge(now - first.firstSeenAt)} ago${where(first)}: ` +
      `${untrusted(first.summary, 600)}.`,
    'No mount has failed here yet: stop it before one does. `kubectl rollout pause` does not work for DaemonSets.',
    `• ${undo}`,
    `• Or freeze it where it is: \`kubectl patch daemonset ${name} -n ${ns} --type merge -p ` +
      `'{"spec":{"updateStrategy":{"type":"OnDelete"}}}'\`: no more node plugin pods are replaced; the nodes already ` +
      `on revision ${w.revision} keep it until you undo and delete their plugin pods.`,
  ].join('\n');
}
