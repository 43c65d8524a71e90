// A simulator serving a synthetic cluster (synthetic-cluster.ts), for the benches that time a process against an
// API server. The generated objects are already in served form, so they are bulk-loaded as they are: at 150k pods
// a scenario, which copies, defaults and resolves every object, took 40 s to set up on a quiet machine.
import { startSimulator, type KubeObject, type Simulator } from '@rwx/kube-sim';
import { KIND_KEYS } from '../src/domain/kinds.js';
import type { Snapshot } from '../src/domain/snapshot.js';

/** Starts a simulator (wall clock, no admin port) serving every object of `cluster`, which it owns afterwards. */
export function simulateCluster(name: string, cluster: Snapshot): Promise<Simulator> {
  const bulk = KIND_KEYS.flatMap((k) => cluster[k] as KubeObject[]);
  return startSimulator({ scenario: { name, objects: [], timeline: [] }, bulk, adminPort: false });
}
