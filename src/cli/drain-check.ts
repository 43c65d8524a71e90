// `rwx drain-check NODE`: is it safe to drain NODE right now? Exit 0 OK, 3 BLOCK, 4 CAUTION, 5 UNKNOWN, 1 error.
import type { IncidentsInput } from '../advise/drain.js';
import { boolWord } from '../config/keys.js';
import type { Redis } from 'ioredis';
import { type RecordScope, fleetKeys, recordScope, scopedKey } from '../fleet/keys.js';
import { ClusterIndex } from '../domain/cluster-index.js';
import { systemClock } from '../domain/clock.js';
import { RwxError, toRwxError } from '../errors.js';
import { evaluate } from '../evaluate/evaluate.js';
import { unresolvedKeys } from '../notify/record.js';
import { connectRedis } from '../serve/redis.js';
import { RedisIncidentStore } from '../store/redis-store.js';
import { renderDrainAdvice } from '../render/terminal-drain.js';
import { parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { CliIo, Command } from './io.js';
import { writeDocument } from './output.js';
import { evalSettings, evaluateOptions } from './scan.js';
import { loadSource } from './source.js';
import { cliNodeReports } from './node-reports.js';

const HELP = helpText(
  'drain-check',
  `BLOCK (exit 3) when the node's stuck mounts follow a plugin rollout or the node runs the bad revision; CAUTION
(exit 4) when the node holds a stuck pod of any incident, pods stuck Terminating on claims, stale
VolumeAttachments, or (its rwx agent says, docs/agent.md) a volume still staged there with no pod that holds it
attached, which a drain does not unstage; UNKNOWN (exit 5) when something the decision needs could not be read
(forbidden, missing from the snapshot, the bot's Redis given but not answering), saying what and what that leaves
undecided; OK (exit 0) otherwise. With --redis (or REDIS_URL) the bot's open incidents are consulted, as /rwx drain
does: a plugin rollout incident that partly recovered still blocks its nodes; in a fleet, those of the cluster named
by --cluster (else RWX_CLUSTER_NAME when RWX_FLEET is on), and the answer says whose. Without, every answer but
BLOCK says they were not consulted; likewise when the node's staged volumes could not be checked (no agent there, or
a snapshot).`,
);

const EXIT = { OK: 0, BLOCK: 3, CAUTION: 4, UNKNOWN: 5 } as const;
/** A Kubernetes node name: a DNS subdomain. */
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Runs `rwx drain-check`. */
export const run: Command = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, FLAGS['drain-check'], true);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const [node, ...extra] = positionals;
  if (!node || extra.length > 0) throw new RwxError('USAGE', 'expected exactly one NODE');
  if (node.length > 253 || !NODE_NAME.test(node)) throw new RwxError('USAGE', `"${node}" is not a valid node name`);
  const s = evalSettings(values, FLAGS['drain-check'].output.check.values);
  const url = values.redis ?? io.env.REDIS_URL;
  const scope = url ? await incidentScope(values['redis-prefix'], values.cluster, io) : undefined;
  const { snapshot, conn } = await loadSource(values, io, { command: 'drain-check' });
  const index = ClusterIndex.fromSnapshot(snapshot);
  const open = await openIncidents(url, scope, io);
  // The node's agent, where one runs, for the stale-stage check; a snapshot says none was asked.
  const nodeReports = await cliNodeReports(conn, (io.clock ?? systemClock).now(), node);
  const advice = evaluate(index, { ...evaluateOptions(s), ...open, nodeReports }).drain(node);
  // Which cluster's incidents were consulted, so an answer from the wrong prefix or cluster shows itself.
  const consulted = scope ? { incidentsOf: scope } : {};
  if (s.format === 'json' || s.format === 'yaml') await writeDocument(io, s.format, { ...advice, ...consulted });
  else io.stdout.write(renderDrainAdvice(advice) + (scope ? `\n${consultedLine(scope)}\n` : ''));
  return EXIT[advice.decision];
};

/**
 * Whose open incidents to read: under --redis-prefix (else RWX_REDIS_PREFIX, else rwx), the cluster named by
 * --cluster, else by RWX_CLUSTER_NAME when RWX_FLEET is on, as `rwx serve` lays them out (fleet/keys.ts recordScope);
 * with neither, the one cluster the prefix holds. The RWX_* values are read by the loader `rwx serve` uses, so a
 * malformed one (RWX_FLEET=maybe) is an error naming it, as the bot's would be, never a silent default.
 */
async function incidentScope(prefix: string | undefined, cluster: string | undefined, io: CliIo): Promise<RecordScope> {
  const fleetOn = cluster === undefined && boolWord(io.env.RWX_FLEET ?? '') === true;
  if (fleetOn && (io.env.RWX_CLUSTER_NAME ?? '').trim() === '')
    throw new RwxError('USAGE', 'RWX_FLEET is on: name the cluster to check with --cluster or RWX_CLUSTER_NAME');
  // Loaded here, only when incidents are consulted: `drain-check --snapshot` of a JSON file loads no YAML library.
  const { loadConfig } = await import('../config/load.js');
  // With --cluster the fleet settings play no part, so they are not read.
  const names = ['RWX_REDIS_PREFIX', ...(cluster === undefined ? ['RWX_FLEET', 'RWX_CLUSTER_NAME'] : [])];
  const bot = loadConfig({ env: Object.fromEntries(names.map((k) => [k, io.env[k]])), slack: 'optional' });
  const base = prefix ?? bot.redis.prefix;
  if (cluster !== undefined) return recordScope(base, cluster);
  return bot.fleet.enabled ? recordScope(base, bot.clusterName) : recordScope(base);
}

/** The line that says whose open incidents were asked for. */
function consultedLine(scope: RecordScope): string {
  const whose = scope.cluster === undefined ? '' : `cluster ${scope.cluster}, `;
  return `Open incidents of: ${whose}Redis prefix ${scope.prefix}`;
}

/**
 * The bot's open incidents, as /rwx drain sees them (notify/record.ts unresolvedKeys): the keys of `scope`'s
 * cluster when the Redis at `url` answers, the reason when it does not (a blind spot: UNKNOWN unless BLOCK),
 * 'not consulted' without a URL.
 */
async function openIncidents(
  url: string | undefined,
  scope: RecordScope | undefined,
  io: CliIo,
): Promise<{ openKeys?: ReadonlySet<string>; incidents: IncidentsInput }> {
  if (!url || !scope) return { incidents: 'not consulted' };
  try {
    const redis = await connectRedis(url, {
      password: io.env.REDIS_PASSWORD || undefined,
      // The bot's Redis, not one to start: the way out is the right address, or not consulting it.
      fix: "check --redis (or REDIS_URL) names the bot's Redis, or leave it out to answer without its open incidents",
    });
    try {
      if (scope.cluster === undefined) await refuseFleet(redis, scope.prefix);
      const keys = await unresolvedKeys(new RedisIncidentStore(redis, scope.prefix));
      return { openKeys: new Set(keys.flatMap((k) => scopedKey(scope, k) ?? [])), incidents: 'read' };
    } finally {
      redis.disconnect();
    }
  } catch (e) {
    const err = toRwxError(e);
    if (err.code === 'USAGE') throw err;
    return { incidents: { unreadable: err.message } };
  }
}

// A prefix that holds a fleet keeps no records of its own: reading it would consult nothing and could say OK.
async function refuseFleet(redis: Redis, base: string): Promise<void> {
  const clusters = (await redis.hkeys(fleetKeys(base).heartbeats)).sort();
  if (clusters.length === 0) return;
  const named = clusters.join(', ');
  throw new RwxError(
    'USAGE',
    `Redis prefix ${base} holds a fleet (${named}): name the cluster to check with --cluster`,
  );
}
