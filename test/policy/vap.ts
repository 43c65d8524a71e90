// A small evaluator for the ValidatingAdmissionPolicy in deploy/policy/: the parts of the apiserver's algorithm
// the policy uses (resource match, matchConditions, variables in order, validations), with @bufbuild/cel as the
// CEL engine. An evaluation error counts as a rejection, as failurePolicy: Fail does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/domain/objects.js';

/** The policy file under test. */
export const POLICY_FILE = join(import.meta.dirname, '../../deploy/policy/csi-node-plugin-propagation.yaml');

interface Named {
  name: string;
  expression: string;
}
/** The fields of the policy this evaluator reads. */
export interface Policy {
  spec: {
    matchConstraints: { resourceRules: { apiGroups: string[]; resources: string[]; operations: string[] }[] };
    matchConditions: Named[];
    variables: Named[];
    validations: { expression: string; messageExpression?: string; message?: string }[];
  };
}

/** The policy and binding documents of the deploy file. */
export function loadPolicyFile(): {
  policy: Policy;
  binding: { spec: { policyName: string; validationActions: string[] } };
  kinds: string[];
} {
  const docs = parseAllDocuments(readFileSync(POLICY_FILE, 'utf8')).map((d) => d.toJS() as { kind: string });
  const policy = docs.find((d) => d.kind === 'ValidatingAdmissionPolicy') as unknown as Policy;
  const binding = docs.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding') as unknown as {
    spec: { policyName: string; validationActions: string[] };
  };
  return { policy, binding, kinds: docs.map((d) => d.kind) };
}

const RESOURCE_OF: Record<string, string> = {
  DaemonSet: 'daemonsets',
  StatefulSet: 'statefulsets',
  Deployment: 'deployments',
};

/** The admission decision for creating `object`: not matched, admitted, or rejected with the failing messages. */
export type Decision =
  { outcome: 'not-matched' } | { outcome: 'admitted' } | { outcome: 'rejected'; messages: string[] };

// RE2 and JavaScript agree on the policy's patterns (src/policy/patterns.ts keeps them in the common subset);
// compiling each once keeps the suite fast.
const regexes = new Map<string, RegExp>();
const re2 = { compile: (p: string) => regexes.get(p) ?? (regexes.set(p, new RegExp(p)).get(p) as RegExp) };
const env = celEnv({ funcs: strings, re2 });
const planned = new Map<string, ReturnType<typeof plan>>();

function evalCel(expr: string, bindings: Record<string, unknown>): unknown {
  let program = planned.get(expr);
  if (!program) {
    program = plan(env, parse(expr));
    planned.set(expr, program);
  }
  const v = program(bindings as never);
  if (isCelError(v))
    throw new Error(`CEL error in ${expr.slice(0, 60)}...: ${String((v as { message?: string }).message ?? v)}`);
  return v;
}

/** Evaluates the policy for a CREATE of `object`, as the apiserver would. */
export function admit(policy: Policy, object: KubeObject): Decision {
  const resource = RESOURCE_OF[object.kind ?? ''];
  const group = (object.apiVersion ?? '').includes('/') ? (object.apiVersion ?? '').split('/')[0] : '';
  const matched = policy.spec.matchConstraints.resourceRules.some(
    (r) =>
      r.apiGroups.includes(group ?? '') &&
      resource !== undefined &&
      r.resources.includes(resource) &&
      r.operations.includes('CREATE'),
  );
  if (!matched) return { outcome: 'not-matched' };
  // JSON round trip: plain data only, as the apiserver hands CEL (the yaml library can leave Dates in place).
  const obj = JSON.parse(JSON.stringify(object)) as unknown;
  try {
    for (const c of policy.spec.matchConditions)
      if (evalCel(c.expression, { object: obj }) !== true) return { outcome: 'not-matched' };
    const variables: Record<string, unknown> = {};
    for (const v of policy.spec.variables) variables[v.name] = evalCel(v.expression, { object: obj, variables });
    const messages: string[] = [];
    for (const val of policy.spec.validations) {
      if (evalCel(val.expression, { object: obj, variables }) === true) continue;
      messages.push(
        val.messageExpression
          ? String(evalCel(val.messageExpression, { object: obj, variables }))
          : (val.message ?? ''),
      );
    }
    return messages.length === 0 ? { outcome: 'admitted' } : { outcome: 'rejected', messages };
  } catch (e) {
    return { outcome: 'rejected', messages: [`evaluation error (failurePolicy: Fail): ${(e as Error).message}`] };
  }
}
