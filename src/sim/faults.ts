// Faults on demand, switched at runtime by tests and the demo: the failures a bot must survive from a real API
// server (RBAC gaps, expired tokens, stalled or dropped watches, a transient 500, a slow server).

/** One forbidden resource, optionally only for one verb. */
interface Forbidden {
  resource: string;
  verb?: string;
}

/** Runtime fault switches. Every method returns `this` so calls can chain. */
export class Faults {
  private forbidden: Forbidden[] = [];
  private unauth = false;
  private failAt: number[] = [];
  private requests = 0;
  /** Watches deliver nothing (no events, no bookmarks, no timeout) while stalled; held events follow on resume. */
  stalled = false;
  /** Milliseconds (wall time) every response waits before it is handled. */
  delayMs = 0;
  /** Set by the server: closes every open watch connection abruptly. */
  onDrop: () => void = () => {};
  /** Set by the server: re-delivers held events after a stall ends. */
  onResume: () => void = () => {};

  /** 403 Forbidden for `resource` (plural, e.g. "volumeattachments"), for every verb or just `verb`. */
  forbid(resource: string, verb?: string): this {
    this.forbidden.push(verb === undefined ? { resource } : { resource, verb });
    return this;
  }

  /** Whether a request is forbidden by a fault. */
  isForbidden(resource: string, verb: string): boolean {
    return this.forbidden.some((f) => f.resource === resource && (f.verb === undefined || f.verb === verb));
  }

  /** 401 Unauthorized for every request while on (an expired token). */
  unauthorized(on = true): this {
    this.unauth = on;
    return this;
  }

  /** Whether requests are currently refused with 401. */
  isUnauthorized(): boolean {
    return this.unauth;
  }

  /** A 500 for the nth request from now (1 = the very next one). Several calls add several failures. */
  failNth(n: number): this {
    this.failAt.push(this.requests + n);
    return this;
  }

  /** Counts a request; true when this one must fail with 500. */
  countRequest(): boolean {
    this.requests++;
    const i = this.failAt.indexOf(this.requests);
    if (i < 0) return false;
    this.failAt.splice(i, 1);
    return true;
  }

  /** Open and new watches hang without closing while on; turning it off delivers what was held. */
  stallWatches(on = true): this {
    this.stalled = on;
    if (!on) this.onResume();
    return this;
  }

  /** Drops every open watch connection now, mid-stream, without a clean end of the chunked body. */
  dropWatches(): this {
    this.onDrop();
    return this;
  }

  /** Delays every response by `ms` of wall time (0 turns it off). */
  latency(ms: number): this {
    this.delayMs = ms;
    return this;
  }

  /** Turns every fault off. */
  clear(): this {
    this.forbidden = [];
    this.unauth = false;
    this.failAt = [];
    this.delayMs = 0;
    this.stallWatches(false);
    return this;
  }
}
