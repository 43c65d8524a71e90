// `rwx drain-check NODE`: is it safe to drain NODE right now? Exit 0 OK, 3 BLOCK, 4 CAUTION, 5 UNKNOWN, 1 error.
import type { IncidentsInput } from '../advise/drain.js';
import { DEFAULT_CONFIG } from '../config/keys.js';
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
does: a plugin rollout incident that partly recovered still blocks its nodes. Without, every answer but BLOCK says
they were not; likewise when the node's staged volumes could not be checked (no agent there, or a snapshot).`,
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
  const { snapshot, conn } = await loadSource(values, io);
  const index = ClusterIndex.fromSnapshot(snapshot);
  const open = await openIncidents(values.redis ?? io.env.REDIS_URL, values['redis-prefix'], io);
  // The node's agent, where one runs, for the stale-stage check; a snapshot says none was asked.
  const nodeReports = await cliNodeReports(conn, (io.clock ?? systemClock).now(), node);
  const advice = evaluate(index, { ...evaluateOptions(s), ...open, nodeReports }).drain(node);
  if (s.format === 'json' || s.format === 'yaml') await writeDocument(io, s.format, advice);
  else io.stdout.write(renderDrainAdvice(advice));
  return EXIT[advice.decision];
};

/**
 * The bot's open incidents, as /rwx drain sees them (notify/record.ts unresolvedKeys): their keys when the Redis at
 * `url` answers, the reason when it does not (a blind spot: UNKNOWN unless BLOCK), 'not consulted' without a URL.
 */
async function openIncidents(
  url: string | undefined,
  prefix: string | undefined,
  io: CliIo,
): Promise<{ openKeys?: ReadonlySet<string>; incidents: IncidentsInput }> {
  if (!url) return { incidents: 'not consulted' };
  try {
    const redis = await connectRedis(url, 3000, io.env.REDIS_PASSWORD || undefined);
    try {
      const store = new RedisIncidentStore(redis, prefix ?? (io.env.RWX_REDIS_PREFIX || DEFAULT_CONFIG.redisPrefix));
      return { openKeys: new Set(await unresolvedKeys(store)), incidents: 'read' };
    } finally {
      redis.disconnect();
    }
  } catch (e) {
    return { incidents: { unreadable: toRwxError(e).message } };
  }
}
