// A captured cluster, as a file `--snapshot` reads: a header document (what was captured, from where, when, and
// which kinds could not be read and why), then one typed list per kind ("PodList": an empty one still says the
// cluster had none). Objects are as the live reader projects them, so the file answers as the cluster did. The bot
// reads no Secret, and the projection keeps only Secret names. What else may hold one is a literal `env` value in a
// pod template (DaemonSets, their revisions, Jobs, CronJobs) whose name says it is a credential (CREDENTIAL_ENV):
// it is replaced by a keyed fingerprint, equal values stay equal within the file (a revision diff still sees the
// change) and none can be recovered from it. Other env values stay: the plugin finder reads them (a driver name,
// a registration path expanded from $(VAR)), and the file must answer as the cluster did.
import { createHmac, randomBytes } from 'node:crypto';
import { KINDS, KIND_KEYS, apiVersionOf } from '../domain/kinds.js';
import type { Snapshot, UnreadableKind } from '../domain/snapshot.js';

/** apiVersion and kind of the header document. */
export const CAPTURE_API_VERSION = 'rwx.dev/v1';
export const CAPTURE_KIND = 'Capture';

/** The header document: where and when, and the kinds the file does not hold with the reason. */
export interface CaptureHeader {
  apiVersion: typeof CAPTURE_API_VERSION;
  kind: typeof CAPTURE_KIND;
  capturedAt: string;
  server: string;
  context: string;
  namespace?: string;
  unreadable: UnreadableKind[];
}

/** Whether a parsed document is a capture header. */
export function isCaptureHeader(v: unknown): v is CaptureHeader {
  const o = v as Partial<CaptureHeader> | null;
  return !!o && o.apiVersion === CAPTURE_API_VERSION && o.kind === CAPTURE_KIND && Array.isArray(o.unreadable);
}

/** How many items are written per write call (a 150k-pod list is not one string). */
const BATCH = 500;

/**
 * Writes `snap` as capture documents, one JSON document a line group: the header, then a typed list per kind it
 * holds (kinds in `snap.unreadable` get no list, so a reader sees them as missing). Credential env values are
 * fingerprinted.
 */
export function writeCapture(
  snap: Snapshot,
  header: Omit<CaptureHeader, 'apiVersion' | 'kind' | 'unreadable'>,
  write: (s: string) => void,
): void {
  const full: CaptureHeader = {
    apiVersion: CAPTURE_API_VERSION,
    kind: CAPTURE_KIND,
    ...header,
    unreadable: snap.unreadable,
  };
  write(`${JSON.stringify(full)}\n`);
  const missing = new Set(snap.unreadable.map((u) => u.kind));
  const fingerprint = envFingerprint();
  for (const k of KIND_KEYS) {
    if (missing.has(k)) continue;
    const info = KINDS[k];
    const apiVersion = apiVersionOf(info);
    write(`{"apiVersion":${JSON.stringify(apiVersion)},"kind":"${info.kind}List","items":[`);
    const items = snap[k] as object[];
    for (let i = 0; i < items.length; i += BATCH) {
      // Each item names its kind too, as kubectl's lists do: manifest readers (policy check -f) need it.
      const batch = items
        .slice(i, i + BATCH)
        .map((o) => JSON.stringify({ apiVersion, kind: info.kind, ...withoutEnvValues(o, fingerprint) }));
      write(`${i > 0 ? ',' : ''}\n${batch.join(',\n')}`);
    }
    write('\n]}\n');
  }
}

/** A keyed fingerprint of env values, with a key of this capture only (never written). */
function envFingerprint(): (value: string) => string {
  const key = randomBytes(32);
  return (value) => `(value withheld: ${createHmac('sha256', key).update(value).digest('hex').slice(0, 16)})`;
}

/** Env names that hold credentials by convention: their literal values are not written. */
export const CREDENTIAL_ENV = /PASSW(?:OR)?D|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH/i;

/** A copy of `v` in which the literal `value` of every credential `env` entry is fingerprinted; shares nothing with `v`. */
export function withoutEnvValues<T>(v: T, fingerprint: (value: string) => string): T {
  if (Array.isArray(v)) return v.map((x) => withoutEnvValues(x, fingerprint)) as T;
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] =
      k === 'env' && Array.isArray(x)
        ? x.map((e: unknown) => {
            const entry = e as { name?: unknown; value?: unknown } | null;
            if (!entry || typeof entry !== 'object' || typeof entry.value !== 'string') return e;
            if (typeof entry.name !== 'string' || !CREDENTIAL_ENV.test(entry.name)) return { ...entry };
            return { ...entry, value: fingerprint(entry.value) };
          })
        : withoutEnvValues(x, fingerprint);
  }
  return out as T;
}
