// Loading the deploy/ manifests for the tests: rendered with `kubectl kustomize` when kubectl is there, or the
// plain files of a directory (for the checks that must run everywhere).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');
/** deploy/ */
export const DEPLOY = join(ROOT, 'deploy');

/** A Kubernetes object as parsed from YAML (only the fields the tests read are typed). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Parses a multi-document YAML stream into objects; throws on a YAML error. */
export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(d.errors[0]?.message);
      return d.toJS() as K8sObject;
    })
    .filter((o) => o !== null);
}

/** The kubectl binary's kustomize, or undefined when kubectl is missing or too old for components (< 1.27). */
export function kubectlKustomizeVersion(): string | undefined {
  try {
    const out = execFileSync('kubectl', ['version', '--client', '-o', 'json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const v = JSON.parse(out) as { kustomizeVersion?: string };
    const m = /^v(\d+)\./.exec(v.kustomizeVersion ?? '');
    return m && Number(m[1]) >= 5 ? v.kustomizeVersion : undefined;
  } catch {
    return undefined;
  }
}

/** Renders a kustomization directory (relative to deploy/, or absolute) with `kubectl kustomize`. */
export function render(dir: string): K8sObject[] {
  return parseObjects(
    execFileSync('kubectl', ['kustomize', resolve(DEPLOY, dir)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/** Every object in the plain YAML files of a directory (relative to deploy/), kustomization files excluded. */
export function plainObjects(dir: string): K8sObject[] {
  return readdirSync(join(DEPLOY, dir))
    .filter((f) => /\.ya?ml$/.test(f) && !/^kustomization\.ya?ml$/.test(f))
    .flatMap((f) => parseObjects(readFileSync(join(DEPLOY, dir, f), 'utf8')));
}

/** The overlays under deploy/overlays, discovered so a new overlay is tested without editing the test. */
export function overlays(): string[] {
  return readdirSync(join(DEPLOY, 'overlays'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `overlays/${d.name}`);
}

/** Objects of one kind. */
export function ofKind(objs: K8sObject[], kind: string): K8sObject[] {
  return objs.filter((o) => o.kind === kind);
}
