// The words of an incident whose node holds the fault (group.ts rule 0): a node that is not Ready, and the pods on
// other nodes waiting for an attachment it holds (Multi-Attach). Sentences come from the table below, filled from the
// incident's location (locate.ts), never from the propagation story: nothing here was told a mount succeeded.
import type { StuckPodFinding } from '../domain/findings.js';
import type { Location } from '../domain/location.js';
import { nameList } from '../domain/names.js';
import type { IncidentText } from './explain-config.js';
import type { Draft } from './group.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const podKey = (f: StuckPodFinding): string => `${f.pod.namespace}/${f.pod.name}`;

/** The facts the sentences are filled from. */
interface Held {
  node: string;
  loc: Location;
  /** Stuck pods on the holder node, and those waiting elsewhere for an attachment it holds. */
  here: StuckPodFinding[];
  away: StuckPodFinding[];
  age: string;
}

/** One phrasing per fact: each returns its sentence, or nothing when the fact does not hold. */
const SENTENCES: readonly ((h: Held) => string | undefined)[] = [
  (h) =>
    h.loc.holderHealth
      ? `${h.loc.evidence.find((e) => e.startsWith(`${h.node} is NotReady`)) ?? `${h.node} is NotReady`}: its kubelet is not reporting, so nothing on ${h.node} can be mounted, unmounted, tested or inspected through it.`
      : undefined,
  (h) =>
    h.here.some((f) => f.kind === 'stuck-terminating')
      ? `${plural(h.here.filter((f) => f.kind === 'stuck-terminating').length, 'pod')} on ${h.node} stay Terminating: only ${h.node}'s kubelet can confirm they stopped${h.loc.holderHealth ? ', and it is not posting' : ''}.`
      : undefined,
  (h) =>
    h.away.length > 0
      ? `${nameList(
          h.away.map((f) => `${podKey(f)} on ${f.node ?? '?'}`),
          5,
          ', ',
        )} ${h.away.length === 1 ? 'waits' : 'wait'} to attach a volume that is still attached to ${h.node} (Multi-Attach): the attach side holds ${h.away.length === 1 ? 'it' : 'them'}, not ${nameList([...new Set(h.away.map((f) => f.node ?? '?'))], 5, ', ')}.`
      : undefined,
  (h) => h.loc.outlook,
];

/** Title, summary and explanations of an incident held by a node (see the file comment). */
export function heldText(d: Draft, loc: Location, age: string): IncidentText {
  const node = loc.holder ?? d.node ?? '?';
  const h: Held = {
    node,
    loc,
    here: d.pods.filter((f) => f.node === node),
    away: d.pods.filter((f) => f.node !== node),
    age,
  };
  const parts = [
    ...(h.here.length > 0 ? [`${plural(h.here.length, 'pod')} stuck on ${node}`] : []),
    ...(h.away.length > 0 ? [`${plural(h.away.length, 'pod')} elsewhere waiting for an attachment it holds`] : []),
  ];
  const state = loc.holderHealth
    ? `${node} is NotReady (Ready=${loc.holderHealth.ready})`
    : `${node} holds an attachment`;
  return {
    title: loc.holderHealth
      ? `${node} is NotReady: its pods and volumes are stuck`
      : `${node} holds the attachment other nodes' pods wait for`,
    summary: `FOLLOWS_NODE: ${state}; ${parts.join(', ')}${age}; layer ${loc.layer}, held by ${node}`,
    explanations: SENTENCES.map((s) => s(h)).filter((s): s is string => !!s),
  };
}
