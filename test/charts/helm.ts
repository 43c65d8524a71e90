// Running helm on charts/rwx for the tests: lint and template with a values file (and --set flags), the rendered
// objects parsed like the kustomize ones (test/deploy/manifests.ts) so the same checks apply.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, parseObjects, type K8sObject } from '../deploy/manifests.js';
import { toolGate } from '../tools.js';

/** charts/rwx */
export const CHART = join(ROOT, 'charts/rwx');
/** The release the tests install: name rwx in namespace rwx, so names match the kustomize files. */
export const RELEASE = { name: 'rwx', namespace: 'rwx' };
/** Whether helm is here, or must be. */
export const HELM = toolGate('helm', ['version', '--short']);

/** One helm run: exit status and output (helm notes symlinked chart files on stderr; that is not an error). */
export interface HelmRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `helm ARGS...`. */
export function helm(args: string[]): HelmRun {
  const r = spawnSync('helm', args, { encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The chart's CI values files (charts/rwx/ci/*-values.yaml, chart-testing's convention), by file name. */
export function ciValuesFiles(): string[] {
  return readdirSync(join(CHART, 'ci'))
    .filter((f) => f.endsWith('-values.yaml'))
    .sort();
}

/** `helm template` with values files (relative to charts/rwx, or absolute) and `--set` pairs; throws with helm's message. */
export function template(values: string[], set: string[] = []): K8sObject[] {
  const r = helm(templateArgs(values, set));
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr.trim()}`);
  return parseObjects(r.stdout);
}

/** The arguments of `helm template` for the test release. */
export function templateArgs(values: string[], set: string[] = []): string[] {
  return [
    'template',
    RELEASE.name,
    CHART,
    '--namespace',
    RELEASE.namespace,
    ...values.flatMap((v) => ['--values', resolve(CHART, v)]),
    ...set.flatMap((s) => ['--set', s]),
  ];
}

/** `helm lint --strict` with one values file. */
export function lint(values: string): HelmRun {
  return helm(['lint', '--strict', CHART, '--namespace', RELEASE.namespace, '--values', join(CHART, values)]);
}

/** The object of `kind` named `name`, or undefined. */
export function find(objs: K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objs.find((o) => o.kind === kind && o.metadata.name === name);
}
