// An API server's answer status -> RwxError: the one mapping every reader of the cluster uses (lists, watches,
// access reviews, agent lookups and the gate's typed client), so a 403 is KUBE_FORBIDDEN wherever it happens.
import { RwxError } from '../errors.js';

/** Where a status came from, for the message: the server's URL, and a hint to add to a 403 (which RBAC to grant). */
export interface StatusContext {
  server?: string;
  forbiddenHint?: string;
  cause?: unknown;
}

/**
 * The error for a non-success `status` while doing `what`: 401 KUBE_UNAUTHORIZED, 403 KUBE_FORBIDDEN, 404 NOT_FOUND,
 * 410 KUBE_GONE, 502/503/504 KUBE_UNREACHABLE (a proxy or an API server that cannot serve: the cluster cannot be
 * seen, as when refused), anything else KUBE_API (retryable). `body` is the API's Status object (or its JSON text).
 */
export function statusError(status: number, body: unknown, what: string, ctx: StatusContext = {}): RwxError {
  const msg = statusMessage(body);
  const opts = ctx.cause === undefined ? {} : { cause: ctx.cause };
  const server = ctx.server ?? 'the API server';
  if (status === 401) return new RwxError('KUBE_UNAUTHORIZED', `${server}: credentials rejected (expired?)`, opts);
  if (status === 403) {
    const hint = ctx.forbiddenHint ? `; ${ctx.forbiddenHint}` : '';
    return new RwxError('KUBE_FORBIDDEN', `${what}: forbidden${msg ? `: ${msg}` : ''}${hint}`, opts);
  }
  if (status === 404) return new RwxError('NOT_FOUND', `${what}: ${msg || 'not found'}`, opts);
  if (status === 410) return new RwxError('KUBE_GONE', `${what}: ${msg || 'resource version too old'}`, opts);
  const answered = `${what}: ${server} answered ${status}${msg ? `: ${msg}` : ''}`;
  if (status === 502 || status === 503 || status === 504) return new RwxError('KUBE_UNREACHABLE', answered, opts);
  return new RwxError('KUBE_API', answered, opts);
}

/** The first line of a Status object's message (object or JSON text); '' when there is none. */
export function statusMessage(body: unknown): string {
  let b = body;
  if (typeof body === 'string') {
    try {
      b = JSON.parse(body);
    } catch {
      return body.split('\n')[0]?.slice(0, 200) ?? '';
    }
  }
  const m = (b as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? (m.split('\n')[0] ?? '') : '';
}

/** Transport error codes that mean the API server could not be reached (as opposed to a bug of ours). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** The KUBE_UNREACHABLE error for a request that got no answer: the transport's code when it has a known one. */
export function unreachableError(e: unknown, ctx: { server?: string; what?: string } = {}): RwxError {
  const err = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = [err?.code, err?.cause?.code].find(
    (c): c is string => typeof c === 'string' && UNREACHABLE_CODES.has(c),
  );
  const why = code ?? (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
  const at = ctx.server ? ` at ${ctx.server}` : '';
  return new RwxError(
    'KUBE_UNREACHABLE',
    `${ctx.what ? `${ctx.what}: ` : ''}cannot reach the API server${at} (${why})`,
    {
      cause: e,
    },
  );
}
