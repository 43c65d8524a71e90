// The words of every incident but a rollout's (explain.ts has that one), as a table: the first entry whose `when`
// holds writes the title, summary and explanations, each from the evidence the draft carries.
import type { ClusterIndex } from '../domain/cluster-index.js';
import { runsInBrief } from '../domain/cron-runs.js';
import type { IncidentNode } from '../domain/incident.js';
import type { Location } from '../domain/location.js';
import { nameList } from '../domain/names.js';
import { configText, imagePullText, settingText, type IncidentText } from './explain-config.js';
import { heldText } from './explain-held.js';
import { cronLines, mountsFineLines, plural, timedOutLines, uncomparedLines, withCron } from './explain-lines.js';
import { driverOf, type Draft } from './draft.js';

/** What a text is written from. */
export interface TextInput {
  index: ClusterIndex;
  d: Draft;
  nodes: readonly IncidentNode[];
  location: Location;
  /** ", longest 19m" (empty without pods). */
  age: string;
}

/** One phrasing: when it applies, and the text it writes. */
export interface TextRule {
  when: (t: TextInput) => boolean;
  write: (t: TextInput) => IncidentText;
}

/** The words of a volume's fault (volume-fault.ts): the claim fails on every node tried, which mount its driver. */
function volumeText({ index, d, age }: TextInput): IncidentText {
  const claim = d.key.slice('volume/'.length);
  const nodeNames = [...new Set(d.pods.map((f) => f.node ?? ''))].sort();
  return {
    title: `Claim ${claim}: fails on every node it is tried on (the volume, not the nodes)`,
    summary: `UNEXPLAINED: ${plural(d.pods.length, 'pod')} of claim ${claim} stuck on ${plural(nodeNames.length, 'node')} (${nameList(nodeNames, 5, ', ')})${age}, each of which mounts other ${d.driver ?? ''} volumes fine: the volume's export, permissions or backend, not the nodes or the plugin`,
    explanations: [
      ...mountsFineLines(index, d),
      'Draining or cordoning nodes does nothing for it, and neither does a plugin rollback: the claim fails wherever it is tried.',
    ],
  };
}

/** A node incident that is not held elsewhere: the node is what differs. */
function nodeText({ d, nodes, age }: TextInput): IncidentText {
  const pods = d.pods.length;
  const drivers = [...new Set(d.pods.map(driverOf).filter((x) => x))];
  const term = d.pods.filter((f) => f.kind === 'stuck-terminating').length;
  const parts = [
    ...(pods - term ? [`${plural(pods - term, 'pod')} stuck mounting`] : []),
    ...(term ? [`${plural(term, 'pod')} stuck Terminating on unmount`] : []),
  ];
  return {
    title: `${d.node}: stuck mounts follow the node`,
    summary: `FOLLOWS_NODE: ${parts.join(', ')} on ${d.node} across ${plural(drivers.length, 'driver')} (${drivers.join(', ') || 'none resolved'})${age}; no plugin rollout explains it`,
    explanations: [
      `The fault follows ${d.node}, not a workload or a plugin revision: test it by scheduling a fresh claim on ${d.node} and on another node.`,
      ...timedOutLines(d),
      ...cronLines(d, nodes),
    ],
  };
}

/** Pods whose sandbox (CNI, runtime) cannot be created. */
function sandboxText({ d, nodes, age }: TextInput): IncidentText {
  const nodeCount = new Set(d.pods.map((f) => f.node ?? '')).size;
  const where = d.node ?? plural(nodeCount, 'node');
  const names = [...new Set(d.pods.map((f) => f.node).filter((n): n is string => !!n))].sort();
  return {
    title: `${where}: pods cannot get a sandbox (network, not storage)`,
    summary: `NOT_STORAGE: ${plural(d.pods.length, 'pod')} on ${d.node ?? `${where} (${nameList(names, 10, ', ')})`} stuck in ContainerCreating with FailedCreatePodSandBox${age}: CNI or container runtime, not a volume`,
    explanations: [
      `FailedCreatePodSandBox comes after volumes are mounted: the pods got their volumes, then the CNI plugin or the container runtime on ${d.node ?? 'these nodes'} failed.`,
      ...cronLines(d, nodes),
    ],
  };
}

/** A CronJob with no stuck pod of its Jobs. */
function cronJobText({ d, nodes }: TextInput): IncidentText {
  const c = d.cronJobs[0];
  return {
    title: `CronJob ${c?.cronJob.namespace}/${c?.cronJob.name}: scheduled runs did not complete`,
    summary: `UNEXPLAINED: ${plural(c?.missedRuns ?? 0, 'scheduled run')} missed${c ? runsInBrief(c) : ''}; no stuck pod of its Jobs explains it`,
    explanations: cronLines(d, nodes),
  };
}

/** Stuck pods nothing explains, with what was seen. */
function unexplainedText({ index, d, nodes, age }: TextInput): IncidentText {
  const unknown = d.key === 'unexplained/cause-unknown';
  const nodeCount = new Set(d.pods.map((f) => f.node ?? '')).size;
  return {
    title: unknown ? 'Pods stuck for an unknown cause' : `${d.driver}: stuck mounts, cause unexplained`,
    summary: `UNEXPLAINED: ${plural(d.pods.length, 'pod')} stuck ${unknown ? 'with no storage or network event' : `mounting ${d.driver ?? 'volumes'}`} on ${plural(nodeCount, 'node')}${age}; neither a plugin rollout nor a single node explains them`,
    explanations: [...uncomparedLines(d), ...mountsFineLines(index, d), ...timedOutLines(d), ...cronLines(d, nodes)],
  };
}

const withCronOf =
  (write: (t: TextInput) => IncidentText) =>
  (t: TextInput): IncidentText =>
    withCron(write(t), t.d, t.nodes);

/** The phrasings of every incident but a rollout's, first match wins; the last applies to any draft. */
export const TEXTS: readonly TextRule[] = [
  {
    when: ({ d, location }) => d.verdict === 'FOLLOWS_NODE' && (!!location.holderHealth || d.key.startsWith('attach/')),
    write: withCronOf(({ d, location, age }) => heldText(d, location, age)),
  },
  { when: ({ d }) => d.verdict === 'FOLLOWS_NODE', write: nodeText },
  {
    when: ({ d }) => d.key.startsWith('config/') && d.pods.some((f) => f.configWait),
    write: withCronOf(({ d, age, location }) => settingText(d.pods, age, location.outlook)),
  },
  { when: ({ d }) => d.key.startsWith('config/'), write: withCronOf(({ d, age }) => configText(d.pods, age)) },
  {
    when: ({ d }) => d.key === 'not-storage/image-pull',
    write: withCronOf(({ d, age }) => imagePullText(d.pods, age)),
  },
  { when: ({ d }) => d.verdict === 'NOT_STORAGE', write: sandboxText },
  { when: ({ d }) => d.key.startsWith('volume/'), write: withCronOf(volumeText) },
  { when: ({ d }) => d.key.startsWith('cronjob/'), write: cronJobText },
  { when: () => true, write: unexplainedText },
];
