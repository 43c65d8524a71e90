// IncidentStore on Redis: one hash per incident (`<prefix>:incident:<key>`), a set of open keys (`<prefix>:open`)
// and a lock per incident (`<prefix>:lock:<key>`, SET NX PX with a random token, released by compare-and-delete),
// and the claims of what is said once (`<prefix>:once:<name>`, claimOnce).
// A record's hash has one JSON value per field of `observed` and `buttons` ("observed.history", "buttons.ack"...)
// and one for the lifecycle, so the evaluator, the steps and the buttons never overwrite each other's writes.
// It holds no "key" field: the previous version reads such a hash as no record at all, so during a rolling
// upgrade an old process never acts on a record it cannot understand. Records that old processes wrote are
// converted on read (migrate.ts) and rewritten, atomically, while no old process holds their lock.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RwxError } from '../errors.js';
import { type IncidentStore, lockTokenFor } from './incident-store.js';
import { type LegacyRecord, fromLegacy } from './migrate.js';
import type { IncidentRecord, RecordPatch } from './record.js';

/** The record layout this version writes (the hash field "schema"). */
const SCHEMA = 2;
/** Lock tokens of this version start with this, so a migration can tell an older process's lock from ours. */
const TOKEN_PREFIX = 'v2:';

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
// The first ack wins, also over one a previous-version record holds in its own field.
const ACK = `if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'ack') == 1 then return 0 end
return redis.call('HSETNX', KEYS[1], 'buttons.ack', ARGV[1])`;
// Rewrites a previous-version hash in the current layout, keeping its expiry: only if it still holds exactly the
// fields read (ARGV[3..2+2n]) and no older process holds the lock (one mid-step would write old fields after us).
// 1: rewritten; 0: changed since read; -1: an older process holds the lock.
const MIGRATE = `local lock = redis.call('GET', KEYS[2])
if lock and string.sub(lock, 1, #ARGV[1]) ~= ARGV[1] then return -1 end
local n = tonumber(ARGV[2])
if redis.call('HLEN', KEYS[1]) ~= n then return 0 end
for i = 0, n - 1 do
  if redis.call('HGET', KEYS[1], ARGV[3 + i * 2]) ~= ARGV[4 + i * 2] then return 0 end
end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3 + n * 2))
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`;

// The first owner keeps the claim; its own retries are answered yes again.
const CLAIM = `local v = redis.call('GET', KEYS[1])
if not v then redis.call('SET', KEYS[1], ARGV[1]) return 1 end
if v == ARGV[1] then return 1 end
return 0`;

/** The Redis-backed IncidentStore. `prefix` namespaces every key (e.g. "rwx" or a per-test prefix). */
export class RedisIncidentStore implements IncidentStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<IncidentRecord | undefined> {
    // A previous-version record that changes while it is rewritten is read again (a few times at most).
    for (let attempt = 0; ; attempt++) {
      const h = await this.run(() => this.redis.hgetall(this.recordKey(key)));
      if (h.schema !== undefined) return fromHash(key, h);
      if (h.key === undefined) return undefined;
      const closed = (await this.run(() => this.redis.pttl(this.recordKey(key)))) > 0;
      const record = legacyFromHash(h, closed);
      if (!record) return undefined;
      const read = Object.entries(h);
      const args = [TOKEN_PREFIX, read.length, ...read.flat(), ...toHash(record)];
      const res = await this.run(() => this.redis.eval(MIGRATE, 2, this.recordKey(key), this.lockKey(key), ...args));
      if (res !== 0 || attempt >= 2) return record;
    }
  }

  async create(record: IncidentRecord): Promise<boolean> {
    const fields = toHash(record);
    const res = await this.run(() =>
      this.redis.eval(CREATE, 2, this.recordKey(record.key), this.openKey(), record.key, ...fields),
    );
    return res === 1;
  }

  async patch(key: string, fields: RecordPatch): Promise<boolean> {
    const args = patchFields(fields).flatMap(([f, v]) => [f, v === undefined ? '' : JSON.stringify(v)]);
    const res = await this.run(() => this.redis.eval(PATCH, 1, this.recordKey(key), String(args.length / 2), ...args));
    return res === 1;
  }

  async setAckIfAbsent(key: string, ack: { user: string; at: number }): Promise<boolean> {
    return (await this.run(() => this.redis.eval(ACK, 1, this.recordKey(key), JSON.stringify(ack)))) === 1;
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

  async tryLock(key: string, ttlMs: number, owner?: string): Promise<string | undefined> {
    const token = lockTokenFor(TOKEN_PREFIX, owner, randomUUID());
    const ok = await this.run(() =>
      this.redis.set(this.lockKey(key), token, 'PX', Math.max(1, Math.round(ttlMs)), 'NX'),
    );
    return ok === 'OK' ? token : undefined;
  }

  async unlock(key: string, token: string): Promise<void> {
    await this.run(() => this.redis.eval(UNLOCK, 1, this.lockKey(key), token));
  }

  async lockToken(key: string): Promise<string | undefined> {
    return (await this.run(() => this.redis.get(this.lockKey(key)))) ?? undefined;
  }

  async claimOnce(name: string, owner: string): Promise<boolean> {
    return (await this.run(() => this.redis.eval(CLAIM, 1, `${this.prefix}:once:${name}`, owner))) === 1;
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

// The hash fields of a record, flattened: [field, JSON value, field, JSON value, ...].
function toHash(r: IncidentRecord): string[] {
  const fields: [string, unknown][] = [
    ['schema', SCHEMA],
    ['channel', r.channel],
    ['createdAt', r.createdAt],
    ...patchFields({ observed: r.observed, lifecycle: r.lifecycle, buttons: r.buttons }),
  ];
  return fields.filter(([, v]) => v !== undefined).flatMap(([f, v]) => [f, JSON.stringify(v)]);
}

// The hash fields a patch writes; a value of undefined removes the field.
function patchFields(p: RecordPatch): [string, unknown][] {
  return [
    ...Object.entries(p.observed ?? {}).map(([f, v]): [string, unknown] => [`observed.${f}`, v]),
    ...(p.lifecycle ? [['lifecycle', p.lifecycle] as [string, unknown]] : []),
    ...Object.entries(p.buttons ?? {}).map(([f, v]): [string, unknown] => [`buttons.${f}`, v]),
  ];
}

/** The current-layout fields of a hash, parsed, by group. */
interface Groups {
  observed: Record<string, unknown>;
  buttons: Record<string, unknown>;
  lifecycle?: unknown;
}

function groups(h: Record<string, string>): Groups {
  const out: Groups = { observed: {}, buttons: {} };
  for (const [f, v] of Object.entries(h)) {
    if (f.startsWith('observed.')) out.observed[f.slice('observed.'.length)] = JSON.parse(v);
    else if (f.startsWith('buttons.')) out.buttons[f.slice('buttons.'.length)] = JSON.parse(v);
    else if (f === 'lifecycle') out.lifecycle = JSON.parse(v);
  }
  return out;
}

function fromHash(key: string, h: Record<string, string>): IncidentRecord {
  const g = groups(h);
  return {
    key,
    channel: JSON.parse(h.channel ?? 'null') as string,
    createdAt: JSON.parse(h.createdAt ?? 'null') as number,
    observed: g.observed as unknown as IncidentRecord['observed'],
    lifecycle: g.lifecycle as IncidentRecord['lifecycle'],
    buttons: g.buttons as IncidentRecord['buttons'],
  };
}

// A previous-version hash; current-layout fields a current process already wrote onto it win over the old ones.
function legacyFromHash(h: Record<string, string>, closed: boolean): IncidentRecord | undefined {
  const old: Record<string, unknown> = {};
  for (const [f, v] of Object.entries(h)) if (!f.includes('.') && f !== 'lifecycle') old[f] = JSON.parse(v);
  const record = fromLegacy(old as unknown as LegacyRecord, closed);
  if (!record) return undefined;
  const g = groups(h);
  return {
    ...record,
    observed: { ...record.observed, ...g.observed },
    lifecycle: (g.lifecycle as IncidentRecord['lifecycle'] | undefined) ?? record.lifecycle,
    buttons: { ...record.buttons, ...g.buttons },
  };
}
