// Authorization: the scenario's permissions (allow/deny rules, RBAC-like) plus runtime 403 faults, used both for
// real requests and for SelfSubjectAccessReview answers so the two always agree.
import type { PermissionRule, Scenario } from './scenario.js';
import type { Faults } from './faults.js';

/** The identity the simulator says every client has. */
export const SIM_USER = 'system:serviceaccount:rwx:rwx-bot';

/** What is being asked: a verb on a resource in a group, optionally in a namespace. */
export interface Attributes {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  /** The client asking (fault scopes). */
  client?: string;
}

function matches(r: PermissionRule, a: Attributes): boolean {
  const any = (v: string | undefined, x: string | undefined) => v === undefined || v === '*' || v === (x ?? '');
  return (
    any(r.verb, a.verb) &&
    any(r.resource, a.resource) &&
    any(r.group, a.group) &&
    (r.namespace === undefined || r.namespace === a.namespace)
  );
}

/** Decides requests from scenario rules and faults. Without `allow` rules everything not denied is allowed. */
export class Authorizer {
  constructor(
    private readonly perms: Scenario['permissions'],
    private readonly faults: Faults,
  ) {}

  /** Whether the simulated user may do `a`. */
  allowed(a: Attributes): boolean {
    if (this.faults.isForbidden(a.resource, a.verb, a.client)) return false;
    if ((this.perms?.deny ?? []).some((r) => matches(r, a))) return false;
    const allow = this.perms?.allow;
    return allow === undefined || allow.some((r) => matches(r, a));
  }

  /** The API server's 403 message for `a`. */
  message(a: Attributes): string {
    const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
    const what = `${a.resource}${a.group ? `.${a.group}` : ''}`;
    const cannot = `cannot ${a.verb} resource "${a.resource}" in API group "${a.group}" ${scope}`;
    return `${what} is forbidden: User "${SIM_USER}" ${cannot}`;
  }
}
