// Running `rwx gate` in-process against the API simulator over real HTTPS, with sim time driven by the gate's own
// sleeps (no real waiting): every poll advances the simulator, whose kubelet then moves the probe pods along.
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { ManualClock } from '../../src/domain/clock.js';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { connect } from '../../src/kube/connect.js';
import { clientGateKube } from '../../src/gate/client.js';
import { gateCommand } from '../../src/cli/gate.js';
import type { CliIo } from '../../src/cli/io.js';
import { toRwxError } from '../../src/errors.js';

/** The gate's scenario: gate-node-1..4 schedulable, gate-node-3 cannot mount, 5 cordoned, 6 NotReady. */
export const GATE_SCENARIO = join(import.meta.dirname, '../../scenarios/gate-one-broken-node.yaml');

/** A started simulator with the ManualClock that is its time. */
export async function startGateSim(): Promise<{ sim: Simulator; clock: ManualClock }> {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const sim = await startSimulator({ scenario: GATE_SCENARIO, clock, tls: true });
  return { sim, clock };
}

/**
 * A sleep shared by all concurrent probes: callers arriving in the same turn of the event loop share one advance
 * of sim time, so three parallel probes do not make time run three times as fast.
 */
export function simSleep(sim: Simulator, onSleep?: () => void): (ms: number) => Promise<void> {
  let pending: Promise<void> | undefined;
  return (ms) => {
    onSleep?.();
    pending ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        pending = undefined;
        void sim.advance(ms).then(resolve);
      }),
    );
    return pending;
  };
}

/** Runs `rwx gate ...argv` against the simulator; returns exit code and output. */
export async function gate(
  sim: Simulator,
  clock: ManualClock,
  argv: string[],
  opts: { signal?: AbortSignal; onSleep?: () => void } = {},
) {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from(['']),
    env: {},
  };
  const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
  try {
    const code = await gateCommand(argv, io, {
      kube: clientGateKube(conn.kc),
      clock,
      runId: 'r1a2b3',
      pollMs: 1000,
      sleep: simSleep(sim, opts.onSleep),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    return { code, out, err };
  } catch (e) {
    // What main() does with a thrown error: one line, exit 1.
    return { code: 1, out, err: `${err}rwx gate: ${toRwxError(e).message}\n` };
  }
}

/** Mutating requests from the audit log as "verb resource name" (create carries the name in its body, so none). */
export function writes(sim: Simulator): string[] {
  return sim.audit
    .filter((a) => ['create', 'delete', 'update', 'patch'].includes(a.verb))
    .map((a) => `${a.verb} ${a.resource}${a.name ? ` ${a.name}` : ''} ${a.status}`);
}
