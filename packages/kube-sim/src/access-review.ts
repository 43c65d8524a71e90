// SelfSubjectAccessReview: "may I do this?" answered from the same Authorizer that guards real requests.
import type { Authorizer } from './authz.js';

type Rec = Record<string, unknown>;

/** The API server's reply to a SelfSubjectAccessReview body from `client` (status filled in, spec echoed). */
export function answerAccessReview(body: Rec, authz: Authorizer, client?: string): Rec {
  const spec = (body.spec ?? {}) as Rec;
  const ra = spec.resourceAttributes as Rec | undefined;
  let allowed = true;
  let reason: string | undefined;
  if (ra) {
    const attrs = {
      verb: String(ra.verb ?? ''),
      group: String(ra.group ?? ''),
      resource: String(ra.resource ?? ''),
      ...(ra.namespace ? { namespace: String(ra.namespace) } : {}),
      ...(client ? { client } : {}),
    };
    allowed = authz.allowed(attrs);
    reason = allowed ? 'RBAC: allowed by scenario permissions' : undefined;
  }
  const status: Rec = { allowed };
  if (reason) status.reason = reason;
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status,
  };
}
