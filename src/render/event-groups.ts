// Identical events across pods, grouped: fifty pods that each report the kubelet's "timed out waiting for the
// condition" are one line ("FailedMount x54 on 12 pods: ..."), not fifty. Pure.
import type { EventEvidence } from '../domain/findings.js';

/** One event as seen on one pod. */
export interface PodEvent {
  /** "namespace/name" of the pod. */
  pod: string;
  event: EventEvidence;
}

/** Events with the same type, reason and message (up to the per-pod names in it), across pods. */
export interface EventGroup {
  type: string;
  reason: string;
  /** The message when every pod's is the same, else the shape they share (names in brackets and quotes elided). */
  message: string;
  /** The events' counts summed. */
  count: number;
  /** Pods that reported it, in first-seen order. */
  pods: string[];
  /** The most recent of the events, in seconds before the evaluation; undefined when none says. */
  ageSeconds?: number;
}

/**
 * The part of an event message that is the same on every pod hit by one fault: the volume lists and quoted names
 * the kubelet puts in ("unmounted volumes=[data]", `volume "pvc-1"`) are elided.
 */
export function messageShape(message: string): string {
  return message.replace(/\[[^\]]*\]/g, '[…]').replace(/"[^"]*"/g, '"…"');
}

/** Groups events by type, reason and message shape; the largest groups (by count) first. */
export function groupEvents(events: readonly PodEvent[]): EventGroup[] {
  const groups = new Map<string, EventGroup & { messages: Set<string> }>();
  for (const { pod, event: e } of events) {
    const shape = messageShape(e.message);
    const key = JSON.stringify([e.type, e.reason, shape]);
    let g = groups.get(key);
    if (!g) {
      g = { type: e.type, reason: e.reason, message: shape, count: 0, pods: [], messages: new Set() };
      groups.set(key, g);
    }
    g.count += e.count;
    g.messages.add(e.message);
    if (!g.pods.includes(pod)) g.pods.push(pod);
    if (e.ageSeconds !== undefined) g.ageSeconds = Math.min(g.ageSeconds ?? Infinity, e.ageSeconds);
  }
  return [...groups.values()]
    .map(({ messages, ...g }) => ({ ...g, message: messages.size === 1 ? [...messages][0]! : g.message }))
    .sort((a, b) => b.count - a.count || b.pods.length - a.pods.length);
}
