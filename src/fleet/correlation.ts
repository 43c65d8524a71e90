// Fleet correlation: after each evaluation, a member reports the fingerprint of every FOLLOWS_ROLLOUT incident it
// has (fingerprint.ts) and looks at what the rest of the fleet reported.
// - Its incident's fingerprint was reported earlier by another cluster: once both threads exist, its thread gets
//   one reply linking the first ("the same change broke staging-1 2h ago ...").
// - One of its node plugin DaemonSets has a newest revision whose change matches a fingerprint another cluster
//   reported, and it has no incident of that change (yet): one warning in the incident channel, before a mount
//   fails here.
// Each link and warning is posted once across the fleet (Sightings.once). Failures are logged, never thrown: the
// fleet is an addition to the cluster's own threads, which must never wait for it.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Clock } from '../domain/clock.js';
import type { Incident } from '../domain/incident.js';
import { rollbackFor } from '../advise/rollback.js';
import { dsRef, findPluginDaemonSets, type DriverDaemonSets } from '../correlate/plugin-finder.js';
import { revisionsOf } from '../correlate/plugin-revision.js';
import { diffTemplates } from '../correlate/revision-diff.js';
import { replyMetadata, type SlackApi } from '../slack/api.js';
import type { IncidentStore } from '../store/incident-store.js';
import { threadTsOf } from '../store/record.js';
import { describeChanges, fingerprintOf, type Fingerprint } from './fingerprint.js';
import type { FleetKeys } from './keys.js';
import { renderLink, renderRolloutWarning } from './render-correlation.js';
import { Sightings, type Sighting } from './sightings.js';

/** What the correlator needs. */
export interface FleetCorrelatorOptions {
  redis: ConstructorParameters<typeof Sightings>[0];
  keys: FleetKeys;
  self: string;
  /** The incident channel (warnings go there). */
  channel: string;
  /** This cluster's incident records (thread of each incident). */
  store: Pick<IncidentStore, 'get'>;
  /** Rate-limited Slack (the fleet's per-channel limiter). */
  slack: Pick<SlackApi, 'postMessage'>;
  clock: Clock;
  /** Driver -> DaemonSet overrides (RWX_DRIVER_DAEMONSETS), as the pipeline uses them. */
  driverDaemonSets?: DriverDaemonSets;
  log?: { warn(obj: object, msg: string): void };
}

/** Reports and reads fingerprints after each evaluation. */
export interface FleetCorrelator {
  /** `incidents`: the evaluation's incidents, their keys naming the cluster (a fleet's); `index`: the cluster's cache. */
  observe(incidents: readonly Incident[], index: ClusterIndex | undefined): Promise<void>;
}

/** Creates the correlator. */
export function createFleetCorrelator(o: FleetCorrelatorOptions): FleetCorrelator {
  const sightings = new Sightings(o.redis, o.keys.fingerprints);
  const reported = new Map<string, string>(); // qualified key -> last reported sighting JSON (skip rewrites)
  return {
    async observe(incidents, index) {
      const now = o.clock.now();
      const mine = new Set<string>();
      for (const inc of incidents) {
        const fp = rolloutFingerprint(inc);
        if (!fp) continue;
        mine.add(fp.id);
        await quietly(o, 'report', () => reportAndLink(o, sightings, reported, inc, fp, now));
      }
      if (index) await quietly(o, 'rollout check', () => warnRollouts(o, sightings, index, mine, now));
    },
  };
}

/** The fingerprint of a FOLLOWS_ROLLOUT incident's revision change; undefined for any other incident. */
export function rolloutFingerprint(inc: Incident): Fingerprint | undefined {
  if (inc.verdict !== 'FOLLOWS_ROLLOUT' || !inc.rollout) return undefined;
  return fingerprintOf(inc.rollout.daemonSet, inc.rollout.driver ?? inc.driver, inc.rollout.diff);
}

async function reportAndLink(
  o: FleetCorrelatorOptions,
  sightings: Sightings,
  reported: Map<string, string>,
  inc: Incident,
  fp: Fingerprint,
  now: number,
): Promise<void> {
  const key = inc.key;
  const record = await o.store.get(key);
  const threadTs = record ? threadTsOf(record.lifecycle) : undefined;
  const s = {
    cluster: o.self,
    key,
    summary: describeChanges(inc.rollout?.diff ?? []),
    daemonSet: fp.daemonSet,
    rolledBack: inc.rollout?.rolledBack === true,
    ...(record ? { channel: record.channel } : {}),
    ...(threadTs ? { threadTs } : {}),
  };
  const json = JSON.stringify(s);
  if (reported.get(key) !== json) {
    await sightings.report(fp, s, now);
    reported.set(key, json);
  }
  if (!threadTs || !record) return;
  const all = await sightings.of(fp.id);
  const me = all.find((x) => x.cluster === o.self);
  const first = earliest(all.filter((x) => x.cluster !== o.self && x.threadTs && (!me || x.seq < me.seq)));
  if (!first) return;
  await sightings.once(`link:${key}`, async () => {
    await o.slack.postMessage({
      channel: record.channel,
      threadTs,
      text: renderLink(first, now),
      metadata: replyMetadata(key, 'fleet-link'),
    });
  });
}

// For each node plugin DaemonSet: does its newest revision make a change another cluster reported as broken?
async function warnRollouts(
  o: FleetCorrelatorOptions,
  sightings: Sightings,
  index: ClusterIndex,
  mine: ReadonlySet<string>,
  now: number,
): Promise<void> {
  for (const [driver, ds] of findPluginDaemonSets(index, o.driverDaemonSets)) {
    const [newest, previous] = revisionsOf(index, ds);
    if (!newest || !previous || newest.revision === undefined) continue;
    const changes = diffTemplates(previous.data?.spec?.template, newest.data?.spec?.template);
    const fp = fingerprintOf(dsRef(ds), driver, changes);
    if (!fp || mine.has(fp.id)) continue;
    const first = earliest((await sightings.of(fp.id)).filter((x) => x.cluster !== o.self));
    if (!first) continue;
    const ref = dsRef(ds);
    const rollback = rollbackFor(index, {
      daemonSet: ref,
      newRevision: newest.revision,
      updatedNodes: ds.status?.updatedNumberScheduled ?? 0,
      desiredNodes: ds.status?.desiredNumberScheduled ?? 0,
      counts: { newStuck: 0, newFine: 0, oldStuck: 0, oldFine: 0 },
      nodesOnNewRevision: [],
      diff: changes,
    });
    const facts = {
      cluster: o.self,
      namespace: ref.namespace,
      name: ref.name,
      revision: newest.revision,
      ...(rollback.state === 'undo' && rollback.command ? { undo: rollback.command } : {}),
    };
    await sightings.once(`warn:${o.self}:${ref.namespace}/${ref.name}@${newest.revision}:${fp.id}`, async () => {
      await o.slack.postMessage({ channel: o.channel, text: renderRolloutWarning(facts, first, now) });
    });
  }
}

function earliest(list: readonly Sighting[]): Sighting | undefined {
  return [...list].sort((a, b) => a.seq - b.seq)[0];
}

async function quietly(o: FleetCorrelatorOptions, what: string, f: () => Promise<void>): Promise<void> {
  try {
    await f();
  } catch (e) {
    o.log?.warn({ err: String(e) }, `fleet correlation: ${what} failed`);
  }
}
