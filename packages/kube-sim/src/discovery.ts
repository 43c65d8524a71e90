// Discovery documents (legacy format, which kubectl and client-node fall back to): /version, /api, /apis,
// /api/v1 and /apis/GROUP/VERSION.
import type { ResourceInfo, Resources } from './resources.js';

/** What /version answers. */
export const VERSION_INFO = {
  major: '1',
  minor: '30',
  gitVersion: 'v1.30.4',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-08-14T00:00:00Z',
  goVersion: 'go1.22.5',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function groups(resources: Resources): Map<string, ResourceInfo[]> {
  const m = new Map<string, ResourceInfo[]>();
  for (const r of resources.all()) {
    const k = `${r.group}/${r.version}`;
    m.set(k, [...(m.get(k) ?? []), r]);
  }
  return m;
}

/** The discovery document for `path`, or undefined when it is not a discovery path. */
export function discovery(path: string, resources: Resources): unknown {
  const p = path.replace(/\/+$/, '');
  if (p === '/version') return VERSION_INFO;
  if (p === '/api') {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
    };
  }
  const gs = groups(resources);
  if (p === '/apis') {
    const names = [...new Set([...gs.keys()].map((k) => k.split('/')[0]).filter((g): g is string => !!g))];
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: names.map((name) => {
        const versions = [...gs.keys()]
          .filter((k) => k.startsWith(`${name}/`))
          .map((k) => {
            const version = k.split('/')[1] ?? 'v1';
            return { groupVersion: `${name}/${version}`, version };
          });
        return { name, versions, preferredVersion: versions[0] };
      }),
    };
  }
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(p);
  if (!m) return undefined;
  const group = m[2] ?? '';
  const version = m[1] ?? m[3] ?? '';
  const list = gs.get(`${group}/${version}`);
  if (!list) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: list.map((r) => ({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
    })),
  };
}
