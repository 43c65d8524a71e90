// The admission policy and `rwx policy check` must agree on every object of every node plugin manifest (the
// project's own, and the upstream drivers' where present), as shipped
// and with each `mountPropagation: Bidirectional` line removed; and the policy must use the checker's patterns.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkObject } from '../../src/policy/check.js';
import { parseManifests } from '../../src/policy/manifests.js';
import * as patterns from '../../src/policy/patterns.js';
import { describeUpstream, OWN, UPSTREAM, withoutOnePropagationLine, type ManifestSet } from './manifests.js';
import { POLICY_FILE, admit, loadPolicyFile } from './vap.js';
import { CASES } from './cases.js';

const { policy, binding, kinds } = loadPolicyFile();

/** "Kind name -> verdict" for both implementations over one manifest text. */
function compare(text: string, file: string): { rwx: string[]; cel: string[]; messages: string[] } {
  const rwx: string[] = [];
  const cel: string[] = [];
  const messages: string[] = [];
  for (const { object } of parseManifests(text, file)) {
    const key = `${object.kind} ${object.metadata?.name}`;
    const v = checkObject(object);
    rwx.push(`${key} ${v.status === 'checked' ? (v.violations.length ? 'reject' : 'admit') : 'not-matched'}`);
    const d = admit(policy, object);
    cel.push(`${key} ${d.outcome === 'rejected' ? 'reject' : d.outcome === 'admitted' ? 'admit' : 'not-matched'}`);
    if (d.outcome === 'rejected') messages.push(...d.messages);
  }
  return { rwx, cel, messages };
}

describe('deploy/policy ValidatingAdmissionPolicy', () => {
  it('is a v1 policy with a Deny binding to it', () => {
    expect(kinds).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    expect(binding.spec.policyName).toBe('rwx-csi-node-plugin-propagation');
    expect(binding.spec.validationActions).toEqual(['Deny']);
    expect(readFileSync(POLICY_FILE, 'utf8')).toMatch(/^apiVersion: admissionregistration\.k8s\.io\/v1$/m);
  });

  it('uses exactly the regular expressions of src/policy/patterns.ts', () => {
    const text = readFileSync(POLICY_FILE, 'utf8');
    for (const p of [
      patterns.KUBELET_DIR_PATTERN,
      patterns.PODS_DIR_PATTERN,
      patterns.REGISTRATION_DIR_PATTERN,
      patterns.REGISTRAR_IMAGE_PATTERN,
      patterns.SIDECAR_IMAGE_PATTERN,
      patterns.SIDECAR_NAME_PATTERN,
    ]) {
      expect(text).toContain(`'${p}'`);
    }
  });

  it('names the container and volumeMount when it rejects', () => {
    const file = 'ebs-csi-node.yaml';
    const variant = withoutOnePropagationLine(OWN.read(file))[0];
    const r = compare(variant?.text ?? '', file);
    expect(r.messages).toEqual([
      'CSI node plugin ebs-csi-node: container ebs-plugin volumeMount kubelet-dir mounts the host kubelet directory without mountPropagation: Bidirectional (see rwx docs/policy.md)',
    ]);
  });
});

/** Both implementations agree on every file of a set, as shipped and with each propagation line removed. */
function agreeOn(set: ManifestSet): void {
  for (const file of set.files()) {
    if (set.expected[file]?.helm) continue; // not YAML: neither the apiserver nor rwx can read it
    it(`${file}: agrees with rwx policy check as shipped and with each propagation line removed`, () => {
      const text = set.read(file);
      const shipped = compare(text, file);
      expect(shipped.cel).toEqual(shipped.rwx);
      expect(shipped.cel.filter((c) => c.endsWith(' reject'))).toEqual([]);
      for (const variant of withoutOnePropagationLine(text)) {
        const r = compare(variant.text, file);
        expect(r.cel, `line ${variant.line} removed`).toEqual(r.rwx);
      }
    });
  }
}

describe("deploy/policy on the project's node plugin fixtures", () => agreeOn(OWN));
describeUpstream('deploy/policy on the upstream CSI manifests', () => agreeOn(UPSTREAM));

describe('deploy/policy agrees with rwx on the synthetic cases', () => {
  for (const [name, obj, want] of CASES) {
    // The apiserver rejects a DaemonSet without a pod template in validation, before admission policies run.
    if (name === 'no template') continue;
    // pass -> admitted; a violation -> rejected; ignored / skipped -> the policy does not apply
    it(name, () => {
      const d = admit(policy, { apiVersion: 'apps/v1', ...obj });
      const expected =
        want === 'pass' ? 'admitted' : want === 'ignored' || want === 'skipped' ? 'not-matched' : 'rejected';
      expect(d.outcome).toBe(expected);
    });
  }
});
