// Test helper: start a simulator on a ManualClock, get JSON from it with the bearer token, stop it afterwards; and
// the bridge from the simulator's objects to the bot's Snapshot (the simulator knows nothing of the bot's kinds).
/* eslint-disable @typescript-eslint/no-explicit-any -- API responses here are untyped JSON, read field by field */
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { KINDS, KIND_KEYS } from '../../src/domain/kinds.js';
import { emptySnapshot, type Snapshot } from '../../src/domain/snapshot.js';
import { parseScenario, startSimulator, type Scenario, type Simulator, type SimulatorOptions } from '@rwx/kube-sim';

/** Absolute path of a bundled scenario, e.g. scenarioPath('propagation-loss'). */
export function scenarioPath(name: string): string {
  return fileURLToPath(new URL(`../../scenarios/${name.replace(/\.yaml$/, '')}.yaml`, import.meta.url));
}

/** The simulator's current objects of every kind the bot reads, as the bot's Snapshot (deep copies). */
export function simSnapshot(sim: Pick<Simulator, 'objects'>): Snapshot {
  const s = emptySnapshot();
  for (const k of KIND_KEYS) (s[k] as unknown[]) = sim.objects(KINDS[k].kind);
  return s;
}

/** A fixed sim start (wall-clock-like, so kubectl's own age math stays sane). */
export const SIM_START = Date.parse('2026-11-30T09:15:00Z');

const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

/** A scenario from an inline document (as a YAML file would parse). */
export function inline(doc: Record<string, unknown>): Scenario {
  return parseScenario(doc, 'inline scenario');
}

/** Starts a simulator on a ManualClock (at SIM_START unless told); it is stopped after the test. */
export async function testSim(
  scenario: string | Scenario,
  opts: Omit<SimulatorOptions, 'scenario' | 'clock'> & { start?: number } = {},
): Promise<{ sim: Simulator; clock: ManualClock }> {
  const { start, ...rest } = opts;
  const clock = new ManualClock(start ?? SIM_START);
  const sim = await startSimulator({ ...rest, scenario, clock });
  running.push(sim);
  return { sim, clock };
}

/** GET/POST/DELETE with the simulator's bearer token; returns status and parsed JSON body. */
export async function api(
  sim: Simulator,
  path: string,
  init: { method?: string; body?: unknown; token?: string | null } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? sim.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sim.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
