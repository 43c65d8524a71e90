// Loads the Kubernetes API simulator, a test tool that only `rwx demo` and `rwx sim` use. It is the devDependency
// workspace packages/kube-sim: a clone of the repository has it (npm ci), the production image does not, and then
// this says so in one line. The import is dynamic and its specifier a variable, so nothing else reaches it.
import { RwxError, type ErrorCode } from '../errors.js';

/** The simulator's package name. */
export const SIM_PACKAGE = '@rwx/kube-sim';

/** What the bot reads of a loaded scenario. */
export interface SimScenario {
  name: string;
  description?: string;
  timeline: { atMs: number; note?: string }[];
  /** The simulated kubelet: which plugin revision hashes cannot mount (the demo's fake agents follow it). */
  kubelet?: { brokenRevisionHashes?: string[] };
}

/** What the bot uses of a running simulator. */
export interface RunningSimulator {
  url: string;
  kubeconfigPath: string;
  adminUrl?: string;
  now(): number;
  stop(): Promise<void>;
}

/** How the bot starts one. */
export interface SimStartOptions<S> {
  scenario: string | S;
  port?: number;
  speed?: number;
  realtime?: boolean;
  tls?: boolean;
  adminPort?: number;
}

/**
 * What the bot uses of the package. `S` is the package's own scenario type; test/sim/loader.test.ts checks that
 * the package satisfies this with it, so the two cannot drift apart unnoticed.
 */
export interface SimulatorModule<S extends SimScenario = SimScenario> {
  loadScenario: (path: string) => Promise<S>;
  startSimulator: (opts: SimStartOptions<S>) => Promise<RunningSimulator>;
}

const NOT_SHIPPED =
  'the Kubernetes API simulator is a test tool and is not shipped in this image: ' +
  'run it from a clone of the repository (npm ci && npx rwx demo)';
const NOT_BUILT = 'the Kubernetes API simulator (packages/kube-sim) is not built: run npm run build';

/** The simulator's error codes, as the bot's: a bad scenario is bad input, a busy port a usage error. */
const CODES: Record<string, ErrorCode> = { SCENARIO: 'INPUT', PORT_IN_USE: 'USAGE', SELECTOR: 'INPUT' };

/** Turns an error from the simulator into the bot's own (its message kept, its code mapped). */
export function fromSimError(e: unknown): unknown {
  const err = e as { name?: unknown; code?: unknown; message?: unknown };
  if (err?.name !== 'SimError' || typeof err.code !== 'string') return e;
  return new RwxError(CODES[err.code] ?? 'INTERNAL', String(err.message), { cause: e });
}

/** Imports the simulator; RwxError('NOT_FOUND') in one line when it is not installed or not built. */
export async function loadSimulator(specifier = SIM_PACKAGE): Promise<SimulatorModule> {
  let mod: SimulatorModule;
  try {
    mod = (await import(specifier)) as SimulatorModule;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    const missing = err.message.includes(`'${specifier}'`);
    throw new RwxError('NOT_FOUND', missing ? NOT_SHIPPED : NOT_BUILT, { cause: e });
  }
  return {
    loadScenario: (path) =>
      mod.loadScenario(path).catch((e: unknown) => {
        throw fromSimError(e);
      }),
    startSimulator: (opts) =>
      mod.startSimulator(opts).catch((e: unknown) => {
        throw fromSimError(e);
      }),
  };
}
