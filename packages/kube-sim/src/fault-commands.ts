// Fault knobs as data: the scope every rule carries, the rules the Faults class keeps, and their JSON form (a
// scenario's `faults:` list, the admin endpoint), parsed with zod and written back by describeRule().
import { z } from 'zod';

/** Which requests and watch streams a fault applies to; an omitted field matches everything. */
export interface Scope {
  /** A client name (see Simulator.addClient; the kubeconfig's own client is "default"). */
  client?: string;
  /** A plural resource name, e.g. "pods". */
  resource?: string;
  /** A Kubernetes verb: get, list, watch, create, delete, deletecollection. */
  verb?: string;
}

/** How the API is down: connection refused, 503 for everything, or requests accepted and never answered. */
export type DownMode = 'refused' | 'unavailable' | 'blackhole';

/** What a lasting fault does. */
export type Effect =
  | { kind: 'forbid' }
  | { kind: 'unauthorized' }
  | { kind: 'latency'; ms: number }
  | { kind: 'respond'; status: number; retryAfter?: number; remaining?: number }
  | { kind: 'cut'; remaining?: number }
  | { kind: 'down'; mode: DownMode }
  | { kind: 'stall' }
  | { kind: 'halfOpen' };

/** A lasting fault: its effect, scope, and the timer that lifts it after forMs. */
export type Rule = Effect & { id: number; scope: Scope; timer?: NodeJS.Timeout };

/** The names `clear(kind)` and the JSON commands use for each kind of lasting fault. */
export type FaultKind =
  'forbid' | 'unauthorized' | 'latency' | 'respond' | 'cutResponses' | 'down' | 'stallWatches' | 'halfOpenWatches';

/** The kind name of each effect. */
export const KIND_OF: Record<Effect['kind'], FaultKind> = {
  forbid: 'forbid',
  unauthorized: 'unauthorized',
  latency: 'latency',
  respond: 'respond',
  cut: 'cutResponses',
  down: 'down',
  stall: 'stallWatches',
  halfOpen: 'halfOpenWatches',
};

/** Whether a request or stream (`r`) is in a rule's scope (`s`). */
export function matches(s: Scope, r: Scope): boolean {
  return (
    (s.client === undefined || s.client === r.client) &&
    (s.resource === undefined || s.resource === r.resource) &&
    (s.verb === undefined || s.verb === r.verb)
  );
}

const scope = { client: z.string().optional(), resource: z.string().optional(), verb: z.string().optional() };
const forMs = z.number().int().positive().optional();

/** The JSON form of every knob (scenario `faults:`, the admin endpoint); each maps to the method of that name. */
export const faultCommand = z.discriminatedUnion('fault', [
  z.strictObject({ fault: z.literal('forbid'), ...scope, resource: z.string(), forMs }),
  z.strictObject({ fault: z.literal('unauthorized'), client: z.string().optional(), forMs }),
  z.strictObject({ fault: z.literal('failNth'), n: z.number().int().positive() }),
  z.strictObject({ fault: z.literal('latency'), ms: z.number().int().nonnegative(), ...scope, forMs }),
  z.strictObject({
    fault: z.literal('respond'),
    status: z.number().int().min(400).max(599),
    times: z.number().int().positive().optional(),
    retryAfter: z.number().int().nonnegative().optional(),
    ...scope,
    forMs,
  }),
  z.strictObject({ fault: z.literal('cutResponses'), times: z.number().int().positive().optional(), ...scope, forMs }),
  z.strictObject({
    fault: z.literal('down'),
    mode: z.enum(['refused', 'unavailable', 'blackhole']),
    client: z.string().optional(),
    forMs,
  }),
  z.strictObject({ fault: z.literal('up') }),
  z.strictObject({ fault: z.literal('stallWatches'), client: z.string().optional(), resource: z.string().optional() }),
  z.strictObject({
    fault: z.literal('halfOpenWatches'),
    client: z.string().optional(),
    resource: z.string().optional(),
    forMs,
  }),
  z.strictObject({ fault: z.literal('dropWatches'), client: z.string().optional(), resource: z.string().optional() }),
  z.strictObject({ fault: z.literal('cutWatches'), client: z.string().optional(), resource: z.string().optional() }),
  z.strictObject({ fault: z.literal('expireWatches'), client: z.string().optional(), resource: z.string().optional() }),
  z.strictObject({
    fault: z.literal('clear'),
    kind: z
      .enum(['forbid', 'unauthorized', 'latency', 'respond', 'cutResponses', 'down', 'stallWatches', 'halfOpenWatches'])
      .optional(),
  }),
]);

/** One knob in JSON form, e.g. {"fault": "down", "mode": "blackhole", "forMs": 20000}. */
export type FaultCommand = z.infer<typeof faultCommand>;

export function describeRule(r: Rule): FaultCommand {
  const s = r.scope;
  switch (r.kind) {
    case 'forbid':
      return { fault: 'forbid', resource: s.resource ?? '', ...s };
    case 'unauthorized':
      return { fault: 'unauthorized', ...(s.client ? { client: s.client } : {}) };
    case 'latency':
      return { fault: 'latency', ms: r.ms, ...s };
    case 'respond':
      return {
        fault: 'respond',
        status: r.status,
        ...(r.remaining !== undefined ? { times: r.remaining } : {}),
        ...(r.retryAfter !== undefined ? { retryAfter: r.retryAfter } : {}),
        ...s,
      };
    case 'cut':
      return { fault: 'cutResponses', ...(r.remaining !== undefined ? { times: r.remaining } : {}), ...s };
    case 'down':
      return { fault: 'down', mode: r.mode, ...(s.client ? { client: s.client } : {}) };
    case 'stall':
      return { fault: 'stallWatches', ...s };
    case 'halfOpen':
      return { fault: 'halfOpenWatches', ...s };
  }
}
