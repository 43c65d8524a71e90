// The incident every Redis failover test runs through: `rwx serve` (the compiled CLI) on the propagation-loss
// scenario with the fake Slack, its root and evidence reply posted, and a first change (postgres-2 recovers) told
// in the thread before the fault. The test then breaks its Redis, makes the second change and checks the thread.
import type { FakeSlack } from '../support/fake-slack.js';
import type { FakeMessage } from '../support/fake-slack-methods.js';
import { until } from '../support/until.js';
import { openWorld } from '../support/world.js';
import { startServeChild, type ServeChild } from './child.js';

/** The pod the first change recovers, before the fault, and the one the second recovers, during it. */
export const BEFORE = ['platform', 'postgres-2'] as const;
export const DURING = ['search', 'search-7c9d8f6b5-kccvl'] as const;

/** A running incident on a bot of its own. */
export interface HaIncident {
  slack: FakeSlack;
  child: ServeChild;
  prefix: string;
  root: FakeMessage;
  /** Makes `pod` Running in the simulator. */
  recover(pod: readonly [string, string]): void;
  /** The index of the thread's reply telling `pod` recovered, -1 while none does. */
  told(pod: readonly [string, string]): number;
  /** The texts of the root's edits Slack acted on, in order. */
  edits(): string[];
  close(): Promise<void>;
}

/** Starts the bot with `env` (where its Redis is: the test's own Sentinel or Cluster set), runs `beforeRoot` once it is ready, and waits for the first change. */
export async function haIncident(
  env: Record<string, string>,
  beforeRoot: () => Promise<void> = async () => undefined,
): Promise<HaIncident> {
  // The set is thrown away after the test: no keys to remove from it, none under this prefix in the shared Redis.
  const world = await openWorld({ name: 'fault-ha', ownRedis: true });
  const { sim, slack } = world;
  const settings = world.env(env);
  const prefix = settings.RWX_REDIS_PREFIX!;
  const close = async (): Promise<void> => {
    child?.process.kill('SIGKILL');
    await child?.exited;
    await world.close();
  };
  let child: ServeChild | undefined;
  try {
    child = await startServeChild(sim.kubeconfigPath, settings);
    await beforeRoot();
    await until(() => slack.roots().length === 1 && slack.evidenceShown(slack.roots()[0]!.ts), 'the root', 20_000);
  } catch (e) {
    await close();
    throw e;
  }
  const root = slack.roots()[0]!;
  const told = (pod: readonly [string, string]): number =>
    slack.replies(root.ts).findIndex((r) => {
      const b = JSON.stringify(r.blocks);
      return b.includes(`${pod[0]}/${pod[1]}`) && /recovered/.test(b);
    });
  const recover = (pod: readonly [string, string]): void =>
    sim.apply({ set: [{ kind: 'Pod', namespace: pod[0], name: pod[1], fields: { 'status.phase': 'Running' } }] });
  recover(BEFORE);
  await until(() => told(BEFORE) >= 0, 'the first change', 20_000);
  const edits = (): string[] =>
    slack.callsOf('chat.update').flatMap((c) => (c.args.ts === root.ts && c.handled ? [String(c.args.text)] : []));
  return { slack, child: child!, prefix, root, recover, told, edits, close };
}
