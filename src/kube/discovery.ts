// Is the server a Kubernetes API server at all? Asked once, and only when the lists suggest it is not (404s, or an
// answer that is not a list): the core group at /api is what client-go's discovery reads first
// (discovery_client.go ServerGroups), and every API server serves it, with "v1" among its versions. A wrong URL
// behind a proxy answers 404 to every path, or a login page: then no kind is "not served", the server is wrong.
import { RwxError, isRwxError } from '../errors.js';
import type { ApiConnection } from './connect.js';

/** The core group's discovery path (client-go's LegacyPrefix). */
export const CORE_DISCOVERY_PATH = '/api';

/**
 * Throws RwxError CONFIG "URL is not a Kubernetes API server" when `conn`'s server answers GET /api with 404, or
 * with a 200 that is not an APIVersions listing v1. Any other answer (401, 403, 5xx) settles nothing, and returns:
 * the caller's own error says more. Transport failures throw KUBE_UNREACHABLE as every request does.
 */
export async function assertKubernetesApi(conn: ApiConnection): Promise<void> {
  const res = await conn.request('GET', CORE_DISCOVERY_PATH);
  if (res.status !== 404 && res.status !== 200) return;
  const versions = (res.body as { versions?: unknown } | undefined)?.versions;
  if (res.status === 200 && Array.isArray(versions) && versions.includes('v1')) return;
  const answered = res.status === 404 ? 'answered 404' : 'answered 200 without the API versions';
  const context = conn.context ? ` of context "${conn.context}"` : '';
  throw new RwxError(
    'CONFIG',
    `${conn.server} is not a Kubernetes API server (GET ${CORE_DISCOVERY_PATH} ${answered}): check the server URL${context} in the kubeconfig`,
  );
}

/** Marks an answer no API server gives (a 200 to a list that is not a list): see rethrowChecked. */
const NOT_A_LIST = Symbol('not a list');

/** `e`, marked as the error for a list answer that is not a list. */
export function notAList(e: RwxError): RwxError {
  return Object.assign(e, { [NOT_A_LIST]: true });
}

/**
 * Rethrows `e` from a request to `conn`; when it may say the server is not a Kubernetes API server (a 404 thrown as
 * NOT_FOUND where every API server serves the path, or a list answer that is not a list), asks discovery first,
 * which throws that instead when it is so.
 */
export async function rethrowChecked(conn: ApiConnection, e: unknown): Promise<never> {
  if (isRwxError(e, 'NOT_FOUND') || (e instanceof RwxError && NOT_A_LIST in e)) await assertKubernetesApi(conn);
  throw e;
}
