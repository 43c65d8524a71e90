// The patterns that define "CSI node plugin" and "the host's kubelet directory". They are written in the subset
// of regular-expression syntax that JavaScript and RE2 (CEL's `matches`) read the same way, because the admission
// policy in deploy/policy/ uses the very same strings: test/policy/vap.test.ts checks that they stay identical.
// No backslashes (a literal dot is `[.]`), so the strings also survive YAML and CEL string quoting unchanged.

/**
 * A hostPath the node plugin must mount with Bidirectional propagation: a kubelet root (any directory named
 * `kubelet`, so custom roots such as /var/data/kubelet count), its `pods` subtree (NodePublishVolume targets), the
 * `plugins` directory itself, or its `plugins/kubernetes.io` subtree (NodeStageVolume global mounts). Trailing
 * slashes allowed. NOT matched: `plugins/<driver>` socket dirs and `plugins_registry`, which sidecars share
 * without propagation in every upstream manifest.
 */
export const KUBELET_DIR_PATTERN = '^(/[^/]+)*/kubelet(/pods(/.*)?|/plugins|/plugins/kubernetes[.]io(/.*)?)?/*$';

/** A hostPath that contains the kubelet pods directory (the kubelet root or `pods` itself), where volumes are published. */
export const PODS_DIR_PATTERN = '^(/[^/]+)*/kubelet(/pods)?/*$';

/** The kubelet plugin registration directory: mounting it marks a workload as a CSI node plugin. */
export const REGISTRATION_DIR_PATTERN = '^(/[^/]+)*/kubelet/plugins_registry/*$';

/** Image of the node-driver-registrar sidecar (any registry, tag or digest): marks a workload as a CSI node plugin. */
export const REGISTRAR_IMAGE_PATTERN = 'node-driver-registrar([:@]|$)';

/**
 * Images of the kubernetes-csi sidecars. They talk to the plugin over its socket and never mount volumes, so a
 * sidecar that mounts the kubelet directory without propagation is not a violation.
 */
export const SIDECAR_IMAGE_PATTERN =
  '(^|/)(csi-)?(node-driver-registrar|livenessprobe|provisioner|attacher|resizer|snapshotter|external-health-monitor-(controller|agent))([:@]|$)';

/** Container names the sidecars conventionally get, for images from private registries renamed beyond recognition. */
export const SIDECAR_NAME_PATTERN = '^((csi-)?(node-)?driver-registrar|liveness-?probe)$';

/** The only propagation mode that carries mounts made in the container out to the host. */
export const BIDIRECTIONAL = 'Bidirectional';

/** Workload kinds a CSI node plugin ships as (the hostpath example driver is a StatefulSet). */
export const PLUGIN_KINDS: readonly string[] = ['DaemonSet', 'StatefulSet'];

/** nodeSelector keys that pin a workload to Windows nodes, where mount propagation does not exist. */
export const OS_SELECTOR_KEYS: readonly string[] = ['kubernetes.io/os', 'beta.kubernetes.io/os'];

const compiled = new Map<string, RegExp>();

/** Whether `text` matches one of the patterns above; same semantics as CEL `text.matches(pattern)`. */
export function matches(text: string | undefined | null, pattern: string): boolean {
  if (text === undefined || text === null) return false;
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(pattern);
    compiled.set(pattern, re);
  }
  return re.test(text);
}
