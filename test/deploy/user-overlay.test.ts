// The compositions docs/install.md tells users to write: their own overlay over ours (settings and image), and
// base + a mode component with their own Redis. Rendered for real, so the docs cannot describe a broken layout.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podSpec } from './checks.js';
import { DEPLOY, kubectlKustomizeVersion, ofKind, render, type K8sObject } from './manifests.js';
import { toolRequired } from '../tools.js';

const renderable = kubectlKustomizeVersion() !== undefined || toolRequired('kubectl');
const dir = mkdtempSync(join(tmpdir(), 'rwx-overlay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` as DIR/name/kustomization.yaml and renders it; kustomize wants relative paths. */
function renderKustomization(name: string, text: string): K8sObject[] {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'kustomization.yaml'), text);
  return render(d);
}

/** A deploy/ path relative to the user overlays' directory. */
const rel = (p: string) => relative(join(dir, 'any'), join(DEPLOY, p));

describe.runIf(renderable)('user overlays from docs/install.md', () => {
  it('an overlay over overlays/socket-mode sets the channel and the image', () => {
    const objs = renderKustomization(
      'mine',
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `resources: [${rel('overlays/socket-mode')}]`,
        'configMapGenerator:',
        '  - name: rwx-config',
        '    behavior: merge',
        '    literals: [SLACK_CHANNEL=C0123ABCD, RWX_CLUSTER_NAME=prod]',
        'images:',
        '  - name: rwx',
        '    newName: registry.example.com/rwx',
        '    newTag: 9.9.9',
      ].join('\n'),
    );
    const cm = ofKind(objs, 'ConfigMap').find((c) => c.metadata.name.startsWith('rwx-config'));
    expect(cm?.data).toMatchObject({ SLACK_CHANNEL: 'C0123ABCD', RWX_CLUSTER_NAME: 'prod', RWX_GROUP_WAIT: '30s' });
    const dep = ofKind(objs, 'Deployment')[0] as K8sObject;
    expect(podSpec(dep).containers[0]).toMatchObject({
      image: 'registry.example.com/rwx:9.9.9',
      envFrom: [{ configMapRef: { name: cm?.metadata.name } }],
    });
  });

  it('the HTTP-mode Ingress patch from the docs sets the host', () => {
    const objs = renderKustomization(
      'http-host',
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `resources: [${rel('overlays/http')}]`,
        'patches:',
        '  - target: { kind: Ingress, name: rwx }',
        '    patch: |-',
        '      - op: replace',
        '        path: /spec/rules/0/host',
        '        value: rwx.prod.example.com',
        '      - op: replace',
        '        path: /spec/tls/0/hosts/0',
        '        value: rwx.prod.example.com',
      ].join('\n'),
    );
    expect(ofKind(objs, 'Ingress')[0]?.spec).toMatchObject({
      rules: [{ host: 'rwx.prod.example.com' }],
      tls: [{ hosts: ['rwx.prod.example.com'], secretName: 'rwx-tls' }],
    });
  });

  it('base + the socket-mode component, with your own Redis from the Secret', () => {
    const objs = renderKustomization(
      'own-redis',
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'namespace: rwx',
        `resources: [${rel('base')}]`,
        `components: [${rel('components/socket-mode')}]`,
      ].join('\n'),
    );
    expect(ofKind(objs, 'StatefulSet')).toEqual([]);
    const env = podSpec(ofKind(objs, 'Deployment')[0] as K8sObject).containers[0]?.env ?? [];
    expect(env.find((e) => e.name === 'REDIS_URL')).toEqual({
      name: 'REDIS_URL',
      valueFrom: { secretKeyRef: { name: 'rwx-secrets', key: 'REDIS_URL' } },
    });
    expect(env.map((e) => e.name)).toContain('SLACK_APP_TOKEN');
  });
});
