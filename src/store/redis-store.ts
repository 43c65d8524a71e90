// IncidentStore on Redis: one hash per incident (`<prefix>:incident:<key>`, one JSON value per field, so writers
// of different fields never race), a set of open keys (`<prefix>:open`) and a lock per incident
// (`<prefix>:lock:<key>`, SET NX PX with a random token, released by compare-and-delete).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RwxError } from '../errors.js';
import type { IncidentRecord, IncidentStore, RecordPatch } from './incident-store.js';

// Create atomically: readers never see a half-written record.
const CREATE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
return 1`;
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
// Patch only an existing record: HSET on a missing key would resurrect a deleted incident as a half record.
const PATCH = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[1])
for i = 0, n - 1 do
  local f, v = ARGV[2 + i * 2], ARGV[3 + i * 2]
  if v == '' then redis.call('HDEL', KEYS[1], f) else redis.call('HSET', KEYS[1], f, v) end
end
return 1`;

/** The Redis-backed IncidentStore. `prefix` namespaces every key (e.g. "rwx" or a per-test prefix). */
export class RedisIncidentStore implements IncidentStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<IncidentRecord | undefined> {
    const h = await this.run(() => this.redis.hgetall(this.recordKey(key)));
    if (!h.key) return undefined;
    const out: Record<string, unknown> = {};
    for (const [f, v] of Object.entries(h)) out[f] = JSON.parse(v);
    return out as unknown as IncidentRecord;
  }

  async create(record: IncidentRecord): Promise<boolean> {
    const fields = Object.entries(record)
      .filter(([, v]) => v !== undefined)
      .flatMap(([f, v]) => [f, JSON.stringify(v)]);
    const res = await this.run(() =>
      this.redis.eval(CREATE, 2, this.recordKey(record.key), this.openKey(), record.key, ...fields),
    );
    return res === 1;
  }

  async patch(key: string, fields: RecordPatch): Promise<boolean> {
    const args = Object.entries(fields).flatMap(([f, v]) => [f, v === undefined ? '' : JSON.stringify(v)]);
    const res = await this.run(() => this.redis.eval(PATCH, 1, this.recordKey(key), String(args.length / 2), ...args));
    return res === 1;
  }

  async setAckIfAbsent(key: string, ack: { user: string; at: number }): Promise<boolean> {
    if (!(await this.run(() => this.redis.exists(this.recordKey(key))))) return false;
    return (await this.run(() => this.redis.hsetnx(this.recordKey(key), 'ack', JSON.stringify(ack)))) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.run(() => this.redis.multi().del(this.recordKey(key)).srem(this.openKey(), key).exec());
  }

  async close(key: string, ttlMs: number): Promise<void> {
    await this.run(() =>
      this.redis
        .multi()
        .srem(this.openKey(), key)
        .pexpire(this.recordKey(key), Math.max(1, Math.round(ttlMs)))
        .exec(),
    );
  }

  async listOpen(): Promise<string[]> {
    return (await this.run(() => this.redis.smembers(this.openKey()))).sort();
  }

  async tryLock(key: string, ttlMs: number): Promise<string | undefined> {
    const token = randomUUID();
    const ok = await this.run(() =>
      this.redis.set(this.lockKey(key), token, 'PX', Math.max(1, Math.round(ttlMs)), 'NX'),
    );
    return ok === 'OK' ? token : undefined;
  }

  async unlock(key: string, token: string): Promise<void> {
    await this.run(() => this.redis.eval(UNLOCK, 1, this.lockKey(key), token));
  }

  private recordKey(key: string): string {
    return `${this.prefix}:incident:${key}`;
  }
  private openKey(): string {
    return `${this.prefix}:open`;
  }
  private lockKey(key: string): string {
    return `${this.prefix}:lock:${key}`;
  }

  private async run<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      throw new RwxError('REDIS_UNREACHABLE', `redis: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, {
        cause: e,
      });
    }
  }
}
