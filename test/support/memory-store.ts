// IncidentStore in memory, for pure tests. Same contract as RedisIncidentStore (test/store/
// incident-store.contract.test.ts runs against both); the clock decides lock and record expiry.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../src/domain/clock.js';
import { systemClock } from '../../src/domain/clock.js';
import { type IncidentStore, lockTokenFor } from '../../src/store/incident-store.js';
import type { IncidentRecord, RecordPatch } from '../../src/store/record.js';

/** An in-memory IncidentStore. Records are deep-copied in and out, as Redis would. */
export class MemoryIncidentStore implements IncidentStore {
  private readonly records = new Map<string, { record: IncidentRecord; expiresAt?: number }>();
  private readonly open = new Set<string>();
  private readonly locks = new Map<string, { token: string; until: number }>();
  private readonly claims = new Map<string, string>();

  constructor(private readonly clock: Clock = systemClock) {}

  async get(key: string): Promise<IncidentRecord | undefined> {
    const e = this.live(key);
    return e ? copy(e.record) : undefined;
  }

  async create(record: IncidentRecord): Promise<boolean> {
    if (this.live(record.key)) return false;
    this.records.set(record.key, { record: copy(record) });
    this.open.add(record.key);
    return true;
  }

  async patch(key: string, fields: RecordPatch): Promise<boolean> {
    const e = this.live(key);
    if (!e) return false;
    assign(e.record.observed, fields.observed);
    if (fields.lifecycle) e.record.lifecycle = copy(fields.lifecycle);
    assign(e.record.buttons, fields.buttons);
    return true;
  }

  async setAckIfAbsent(key: string, ack: { user: string; at: number }): Promise<boolean> {
    const e = this.live(key);
    if (!e || e.record.buttons.ack) return false;
    e.record.buttons.ack = { ...ack };
    return true;
  }

  async delete(key: string): Promise<void> {
    this.records.delete(key);
    this.open.delete(key);
  }

  async close(key: string, ttlMs: number): Promise<void> {
    this.open.delete(key);
    const e = this.records.get(key);
    if (e) e.expiresAt = this.clock.now() + ttlMs;
  }

  async listOpen(): Promise<string[]> {
    return [...this.open].filter((k) => this.live(k)).sort();
  }

  async tryLock(key: string, ttlMs: number, owner?: string): Promise<string | undefined> {
    const held = this.locks.get(key);
    if (held && held.until > this.clock.now()) return undefined;
    const token = lockTokenFor('mem:', owner, randomUUID());
    this.locks.set(key, { token, until: this.clock.now() + ttlMs });
    return token;
  }

  async unlock(key: string, token: string): Promise<void> {
    if (this.locks.get(key)?.token === token) this.locks.delete(key);
  }

  async lockToken(key: string): Promise<string | undefined> {
    const held = this.locks.get(key);
    return held && held.until > this.clock.now() ? held.token : undefined;
  }

  async claimOnce(name: string, owner: string): Promise<boolean> {
    if (!this.claims.has(name)) this.claims.set(name, owner);
    return this.claims.get(name) === owner;
  }

  private live(key: string): { record: IncidentRecord; expiresAt?: number } | undefined {
    const e = this.records.get(key);
    if (e?.expiresAt !== undefined && e.expiresAt <= this.clock.now()) {
      this.records.delete(key);
      return undefined;
    }
    return e;
  }
}

function copy<T>(v: T): T {
  return structuredClone(v);
}

// Sets each field the patch names on `group`; a field given as undefined is removed.
function assign(group: object, fields: object | undefined): void {
  const g = group as Record<string, unknown>;
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (v === undefined) delete g[k];
    else g[k] = copy(v);
  }
}
