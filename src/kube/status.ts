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

/** TLS verification codes: the server answered with a certificate the kubeconfig's CA does not vouch for. */
const UNTRUSTED_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Why a request got no answer, in one phrase: the transport's code when it is a known one; for TLS failures what to
 * check (OpenSSL's own text is a line of internals); else the first line of the message.
 */
function transportReason(e: unknown): string {
  type Failure = { code?: unknown; message?: unknown } | undefined;
  const err = e as (Failure & { cause?: Failure }) | undefined;
  const layers = [err, err?.cause];
  const code = (x: Failure) => (typeof x?.code === 'string' ? x.code : '');
  const line = (x: Failure) => (typeof x?.message === 'string' ? (x.message.split('\n')[0] ?? '') : '');
  const known = layers.map(code).find((c) => UNREACHABLE_CODES.has(c));
  if (known) return known;
  const untrusted = layers.find((x) => UNTRUSTED_CODES.has(code(x)));
  if (untrusted) return `${line(untrusted) || code(untrusted)}: not trusted by the kubeconfig's certificate-authority`;
  if (layers.some((x) => code(x) === 'EPROTO' || /wrong version number/.test(line(x))))
    return 'not TLS on that port: check the scheme and port of the server URL';
  return line(err) || String(e);
}

/** The KUBE_UNREACHABLE error for a request that got no answer: the transport's code when it has a known one. */
export function unreachableError(e: unknown, ctx: { server?: string; what?: string } = {}): RwxError {
  const why = transportReason(e);
  const at = ctx.server ? ` at ${ctx.server}` : '';
  return new RwxError(
    'KUBE_UNREACHABLE',
    `${ctx.what ? `${ctx.what}: ` : ''}cannot reach the API server${at} (${why})`,
    {
      cause: e,
    },
  );
}
