// Changes to the cluster cache put off while a reader holds it (src/domain/holds.ts), then applied in arrival order.
// The replay hands the event loop back every few milliseconds, as the changes' own arrival would have, and stops
// as soon as a reader holds the cache again; what arrives meanwhile queues behind.
import { performance } from 'node:perf_hooks';
import type { Holds } from '../domain/holds.js';
import type { ReflectorSink } from './reflector.js';

/** How long a replay runs before the event loop gets a turn (ms). */
const REPLAY_BUDGET_MS = 10;

const turn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

/** A FIFO of changes, replayed once nothing holds the cache. */
export class Deferred {
  private changes: (() => void)[] = [];
  private head = 0;
  private replaying = false;
  private stopped = false;

  /** Nothing is waiting. */
  get empty(): boolean {
    return this.head === this.changes.length;
  }

  /** Queues a change; the replay starts once nothing holds the cache. */
  push(change: () => void, holds: Holds): void {
    this.changes.push(change);
    if (this.changes.length - this.head === 1 && !this.replaying) holds.whenFree(() => void this.replay(holds));
  }

  /** Drops every waiting change (the watcher stopped). */
  clear(): void {
    this.stopped = true;
    this.changes = [];
    this.head = 0;
  }

  private async replay(holds: Holds): Promise<void> {
    if (this.replaying || this.stopped) return;
    this.replaying = true;
    try {
      let since = performance.now();
      while (!this.empty) {
        if (holds.held) return holds.whenFree(() => void this.replay(holds));
        const change = this.changes[this.head++] as () => void;
        try {
          change();
        } catch {
          // The watcher's sink never throws (ReflectorSink); were one to, the others still apply.
        }
        if (performance.now() - since < REPLAY_BUDGET_MS) continue;
        await turn();
        since = performance.now();
      }
      this.changes = [];
      this.head = 0;
    } finally {
      this.replaying = false;
    }
  }
}

/** `sink` with every call going through `apply` (which runs it now or later, in order). */
export function deferring(sink: ReflectorSink, apply: (change: () => void) => void): ReflectorSink {
  const out = {} as Record<keyof ReflectorSink, unknown>;
  for (const k of Object.keys(sink) as (keyof ReflectorSink)[]) {
    const fn = sink[k] as (...args: unknown[]) => void;
    out[k] = (...args: unknown[]) => apply(() => fn(...args));
  }
  return out as unknown as ReflectorSink;
}
