// Fault knobs: the failures a client must survive from a real API server, switched on per run (a scenario's
// `faults:` list, startSimulator's `faults` option) or while the simulator runs (this API, or the admin endpoint).
// A fault is a rule with a scope (which client, resource, verb); rules last until cleared, for `forMs` of wall
// time, or for `times` requests. Actions on open watches (drop, cut, expire) happen once, when called.
import { SimError } from './errors.js';
import {
  KIND_OF,
  describeRule,
  faultCommand,
  matches,
  type DownMode,
  type Effect,
  type FaultCommand,
  type FaultKind,
  type Rule,
  type Scope,
} from './fault-commands.js';
import { reasonOf } from './status.js';

export type { DownMode, FaultCommand, FaultKind, Scope } from './fault-commands.js';

/** What the request handler must do with one request, decided by the active faults. */
export type Decision =
  | { kind: 'pass' }
  | { kind: 'cut' }
  | { kind: 'hang' }
  | { kind: 'status'; status: number; message: string; retryAfter?: number; fault: string };

/** What a watch stream does with the bytes it would send now. */
export type StreamState = 'open' | 'held' | 'dead';

/** One request as faults see it. */
export interface RequestFacts extends Scope {
  client: string;
  verb: string;
}

/** Called by the simulator when rules change or an action targets open watches. */
export interface FaultHooks {
  changed(): void;
  end(scope: Scope): void;
  drop(scope: Scope): void;
  cut(scope: Scope): void;
  expire(scope: Scope): void;
  refuse(on: boolean): void;
}

const noHooks: FaultHooks = { changed() {}, end() {}, drop() {}, cut() {}, expire() {}, refuse() {} };

/** Runtime fault switches for one simulator. Every method returns `this` so calls can chain. */
export class Faults {
  private rules: Rule[] = [];
  private failAt: number[] = [];
  private requests = 0;
  private seq = 0;
  private hooks: FaultHooks = noHooks;

  /** Set by the simulator: how rule changes and watch actions reach the server. */
  connect(hooks: FaultHooks): void {
    this.hooks = hooks;
  }

  /** 403 Forbidden for `resource` (plural, e.g. "volumeattachments"): every verb, or just `verb`. */
  forbid(resource: string, verb?: string, opts: { client?: string; forMs?: number } = {}): this {
    return this.add({ kind: 'forbid' }, { resource, verb, client: opts.client }, opts.forMs);
  }

  /** 401 Unauthorized for every request (of one client) while on: an expired token. */
  unauthorized(on = true, opts: { client?: string; forMs?: number } = {}): this {
    if (!on) return this.clear('unauthorized');
    return this.add({ kind: 'unauthorized' }, { client: opts.client }, opts.forMs);
  }

  /** A 500 for the nth request from now (1 = the very next one). Several calls add several failures. */
  failNth(n: number): this {
    this.failAt.push(this.requests + n);
    return this;
  }

  /** Matching requests wait `ms` of wall time before they are handled (0 removes every latency rule). */
  latency(ms: number, opts: Scope & { forMs?: number } = {}): this {
    if (ms <= 0) return this.clear('latency');
    return this.add({ kind: 'latency', ms }, opts, opts.forMs);
  }

  /**
   * Matching requests are answered with HTTP `status` and a Status body (410 Expired, 429 TooManyRequests with
   * Retry-After, 500, 503, ...): the next `times` of them, or all until cleared or `forMs` passes.
   */
  respond(status: number, opts: Scope & { times?: number; retryAfter?: number; forMs?: number } = {}): this {
    const effect: Effect = { kind: 'respond', status, retryAfter: opts.retryAfter, remaining: opts.times };
    return this.add(effect, { client: opts.client, resource: opts.resource, verb: opts.verb }, opts.forMs);
  }

  /**
   * Matching requests are handled, but the answer stops halfway: the headers and half the body (a list cut
   * inside its JSON, a watch inside its first event), then the connection closes. The next `times` of them, or
   * all until cleared or `forMs` passes.
   */
  cutResponses(opts: Scope & { times?: number; forMs?: number } = {}): this {
    const scope = { client: opts.client, resource: opts.resource, verb: opts.verb };
    return this.add({ kind: 'cut', remaining: opts.times }, scope, opts.forMs);
  }

  /**
   * The API goes down: `refused` closes the port (connection refused) and cuts every connection; `unavailable`
   * answers 503 and ends open watches; `blackhole` accepts connections and never answers, and open watches go
   * silent. `client` limits unavailable and blackhole to one client (a partition). Until up() or `forMs`.
   */
  down(mode: DownMode, opts: { client?: string; forMs?: number } = {}): this {
    if (mode === 'refused' && opts.client !== undefined)
      throw new SimError('FAULT', 'down: "refused" closes the port for every client; it takes no client');
    this.add({ kind: 'down', mode }, { client: opts.client }, opts.forMs);
    // An API server that becomes unavailable ends its watches; clients re-watch and get 503 until it is back.
    if (mode === 'unavailable') this.hooks.end(opts.client === undefined ? {} : { client: opts.client });
    return this;
  }

  /** Ends every `down` fault: the port listens again. Requests left hanging by a blackhole stay unanswered. */
  up(): this {
    return this.clear('down');
  }

  /** Watches deliver nothing (no events, no bookmarks, no timeout) while on; held events follow when it ends. */
  stallWatches(on = true, opts: { client?: string; resource?: string } = {}): this {
    if (!on) return this.clear('stallWatches');
    return this.add({ kind: 'stall' }, opts);
  }

  /**
   * Half-open watches: matching streams (open now, or opened while this lasts) stay connected and never send
   * another byte, not even a bookmark or the end at timeoutSeconds. Streams caught stay silent after the fault
   * ends (a half-open connection does not recover); only new watches work again.
   */
  halfOpenWatches(opts: { client?: string; resource?: string; forMs?: number } = {}): this {
    return this.add({ kind: 'halfOpen' }, { client: opts.client, resource: opts.resource }, opts.forMs);
  }

  /** Cuts matching open watch connections now, between two events, without ending the chunked body. */
  dropWatches(opts: { client?: string; resource?: string } = {}): this {
    this.hooks.drop(opts);
    return this;
  }

  /** The next event each matching open watch sends is cut inside its HTTP chunk, then the connection closes. */
  cutWatches(opts: { client?: string; resource?: string } = {}): this {
    this.hooks.cut(opts);
    return this;
  }

  /** Matching open watches get an ERROR event with a 410 Expired Status now, then their stream ends. */
  expireWatches(opts: { client?: string; resource?: string } = {}): this {
    this.hooks.expire(opts);
    return this;
  }

  /** Turns lasting faults off: every one, or one kind. */
  clear(kind?: FaultKind): this {
    const [gone, kept] = partition(this.rules, (r) => kind === undefined || KIND_OF[r.kind] === kind);
    if (gone.length === 0 && (kind !== undefined || this.failAt.length === 0)) return this;
    for (const r of gone) clearTimeout(r.timer);
    this.rules = kept;
    if (kind === undefined) this.failAt = [];
    this.changed(gone);
    return this;
  }

  /** Stops every timer and detaches from the simulator (its stop()). */
  dispose(): void {
    for (const r of this.rules) clearTimeout(r.timer);
    this.rules = [];
    this.hooks = noHooks;
  }

  /** Applies knobs in their JSON form; throws SimError('FAULT') naming the problem. */
  apply(commands: unknown): this {
    const list = Array.isArray(commands) ? commands : [commands];
    list.forEach((raw, i) => {
      const r = faultCommand.safeParse(raw);
      if (!r.success) {
        const issue = r.error.issues[0];
        const where = issue?.path.length ? issue.path.join('.') : 'fault';
        throw new SimError('FAULT', `faults[${i}].${where}: ${issue?.message ?? 'invalid'}`);
      }
      this.run(r.data);
    });
    return this;
  }

  /** The lasting faults now active, in their JSON form. */
  describe(): FaultCommand[] {
    const out = this.rules.map((r) => describeRule(r));
    for (const at of this.failAt) out.push({ fault: 'failNth', n: at - this.requests });
    return out;
  }

  /** Wall-time delay for a request (the longest matching latency rule). */
  latencyFor(req: RequestFacts): number {
    let ms = 0;
    for (const r of this.rules) if (r.kind === 'latency' && matches(r.scope, req)) ms = Math.max(ms, r.ms);
    return ms;
  }

  /** Counts a request and decides whether a fault answers it instead of the API. */
  decide(req: RequestFacts): Decision {
    this.requests++;
    const active = this.rules.filter((r) => matches(r.scope, req));
    const down = active.find((r): r is Rule & { kind: 'down' } => r.kind === 'down' && r.mode !== 'refused');
    if (down?.mode === 'blackhole') return { kind: 'hang' };
    if (down) return this.status(503, 'down');
    if (active.some((r) => r.kind === 'unauthorized')) return this.status(401, 'unauthorized');
    const i = this.failAt.indexOf(this.requests);
    if (i >= 0) {
      this.failAt.splice(i, 1);
      return this.status(500, 'failNth', 'Internal error occurred: simulated failure (failNth)');
    }
    const respond = active.find((r): r is Rule & { kind: 'respond' } => r.kind === 'respond');
    if (respond) {
      this.spend(respond);
      return this.status(respond.status, 'respond', undefined, respond.retryAfter);
    }
    const cut = active.find((r): r is Rule & { kind: 'cut' } => r.kind === 'cut');
    if (!cut) return { kind: 'pass' };
    this.spend(cut);
    return { kind: 'cut' };
  }

  /** Whether a fault forbids the request (403), for requests and access-review answers alike. */
  isForbidden(resource: string, verb: string, client?: string): boolean {
    return this.rules.some(
      (r) => r.kind === 'forbid' && matches(r.scope, { resource, verb, ...(client ? { client } : {}) }),
    );
  }

  /** What an open watch of `client` on `resource` does with its bytes now. */
  streamState(client: string, resource: string): StreamState {
    const active = this.rules.filter((r) => matches(r.scope, { client, resource }));
    if (active.some((r) => r.kind === 'halfOpen' || (r.kind === 'down' && r.mode === 'blackhole'))) return 'dead';
    return active.some((r) => r.kind === 'stall') ? 'held' : 'open';
  }

  /** Whether the port is closed (connection refused). */
  isRefused(): boolean {
    return this.rules.some((r) => r.kind === 'down' && r.mode === 'refused');
  }

  private run(c: FaultCommand): void {
    const { client, resource, verb } = c as Scope;
    const forMs = 'forMs' in c ? c.forMs : undefined;
    switch (c.fault) {
      case 'forbid':
        return void this.forbid(c.resource, c.verb, { client, forMs });
      case 'unauthorized':
        return void this.unauthorized(true, { client, forMs });
      case 'failNth':
        return void this.failNth(c.n);
      case 'latency':
        return void this.latency(c.ms, { client, resource, verb, forMs });
      case 'respond':
        return void this.respond(c.status, { client, resource, verb, forMs, times: c.times, retryAfter: c.retryAfter });
      case 'cutResponses':
        return void this.cutResponses({ client, resource, verb, forMs, times: c.times });
      case 'down':
        return void this.down(c.mode, { client, forMs });
      case 'up':
        return void this.up();
      case 'stallWatches':
        return void this.stallWatches(true, { client, resource });
      case 'halfOpenWatches':
        return void this.halfOpenWatches({ client, resource, forMs });
      case 'dropWatches':
        return void this.dropWatches({ client, resource });
      case 'cutWatches':
        return void this.cutWatches({ client, resource });
      case 'expireWatches':
        return void this.expireWatches({ client, resource });
      case 'clear':
        return void this.clear(c.kind);
    }
  }

  /** Uses up one of a counted rule's requests. */
  private spend(rule: Rule & { remaining?: number }): void {
    if (rule.remaining !== undefined && --rule.remaining <= 0) this.remove(rule);
  }

  private status(status: number, fault: string, message?: string, retryAfter?: number): Decision {
    const d: Decision = { kind: 'status', status, message: message ?? reasonOf(status)[1], fault };
    return retryAfter === undefined ? d : { ...d, retryAfter };
  }

  private add(effect: Effect, s: Scope, forMs?: number): this {
    const clean = Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as Scope;
    const rule: Rule = { ...effect, id: ++this.seq, scope: clean };
    if (forMs !== undefined) {
      rule.timer = setTimeout(() => this.remove(rule), forMs);
      rule.timer.unref();
    }
    this.rules.push(rule);
    this.changed([rule]);
    return this;
  }

  private remove(rule: Rule): void {
    clearTimeout(rule.timer);
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== rule.id);
    if (this.rules.length !== before) this.changed([rule]);
  }

  private changed(touched: Rule[]): void {
    if (touched.some((r) => r.kind === 'down' && r.mode === 'refused')) this.hooks.refuse(this.isRefused());
    this.hooks.changed();
  }
}

function partition<T>(list: T[], pred: (t: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const t of list) (pred(t) ? yes : no).push(t);
  return [yes, no];
}
