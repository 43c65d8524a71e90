// What runServe may be given instead of building it: the seams the tests, the demo and the fleet demo use.
import type { App } from '@slack/bolt';
import type { Backoff } from '../domain/backoff.js';
import type { ResponseSender } from '../commands/index.js';
import type { FleetMemberOptions } from '../fleet/member.js';
import type { SlackApi } from '../slack/api.js';
import type { ClusterSource } from '../watch/source.js';
import type { ServeParts, WatcherParts } from './app.js';
import type { NodeProofOptions } from './proof.js';

/** What runServe may be given instead of building it (tests: a simulator source, a fake Slack). */
export interface ServeOverrides {
  source?: ClusterSource;
  slack?: SlackApi;
  env?: NodeJS.ProcessEnv;
  /** Ops port; default config.port. */
  port?: number;
  /** Extra startServe and watcher parts (clock, timers, tickMs), and how the node agents are found, for tests. */
  parts?: Partial<ServeParts & WatcherParts> & { proof?: Partial<NodeProofOptions> };
  /** Start the Bolt app (buttons; HTTP or Socket Mode per config). Default true; tests drive Slack directly. */
  bolt?: boolean;
  /** Evaluator lease TTL (default LEASE_TTL_MS, 10 s) for tests. */
  leaseTtlMs?: number;
  /** Notifier tuning for tests. */
  notifier?: { lockTtlMs?: number; backoffMs?: number; channelRetryMs?: number };
  /** Fleet timers for tests (heartbeat, names, silence, how long a routed command may wait). */
  fleet?: FleetMemberOptions['tuning'];
  /** Backoff of the Slack connection loop (tests shorten it). */
  slackBackoff?: Backoff;
  /**
   * Without Bolt (`bolt: false`): an app of the caller's that `/rwx` is registered on (its `command` listener), and
   * where the answers go instead of response_urls. The fleet demo routes a command through it.
   */
  commands?: { app: App; sender: ResponseSender };
}
