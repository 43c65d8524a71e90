// Access checks through SelfSubjectAccessReview: "may I list X?" asked of the API server itself, so preflight
// can say which resources it could not read before the reads fail.
import { KINDS, type KindKey } from '../domain/kinds.js';
import type { ApiConnection } from './connect.js';
import { apiError } from './read.js';

/** One question: may the current user `verb` (default list) this kind, cluster-wide or in `namespace`? */
export interface AccessCheck {
  kind: KindKey;
  verb?: string;
  namespace?: string;
}

/** The answer; `allowed` is null when the review itself could not be made (e.g. reviews forbidden). */
export interface AccessResult {
  kind: KindKey;
  verb: string;
  namespace?: string;
  allowed: boolean | null;
  reason: string;
}

/** Asks one SelfSubjectAccessReview per check (in parallel). 401 and transport errors throw; other failures give allowed: null. */
export async function checkAccess(conn: ApiConnection, checks: readonly AccessCheck[]): Promise<AccessResult[]> {
  return Promise.all(
    checks.map(async (c): Promise<AccessResult> => {
      const verb = c.verb ?? 'list';
      const info = KINDS[c.kind];
      const base = { kind: c.kind, verb, ...(c.namespace ? { namespace: c.namespace } : {}) };
      const res = await conn.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: {
            verb,
            group: info.group,
            resource: info.resource,
            ...(c.namespace ? { namespace: c.namespace } : {}),
          },
        },
      });
      if (res.status === 401) throw apiError(conn, 401, res.body, 'access review');
      if (res.status !== 200 && res.status !== 201) {
        return { ...base, allowed: null, reason: `access review failed (${res.status})` };
      }
      const st = (res.body as { status?: { allowed?: boolean; denied?: boolean; reason?: string } } | undefined)
        ?.status;
      return { ...base, allowed: st?.allowed === true, reason: st?.reason ?? '' };
    }),
  );
}
