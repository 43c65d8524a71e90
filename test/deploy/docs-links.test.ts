// The docs link to each other and to the repository's files: every relative link of every page a reader meets
// (the README, docs/, and the READMEs of scenarios/, the chart, the simulator and the test fakes) must name an
// existing file and, when it has an #anchor, a heading of that file (GitHub's slug rules).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, slug } from './anchors.js';
import { ROOT } from './manifests.js';

const DOCS = [
  'README.md',
  'CHANGELOG.md',
  'SECURITY.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'scenarios/README.md',
  'charts/rwx/README.md',
  'packages/kube-sim/README.md',
  'test/support/README.md',
];

describe('docs links', () => {
  // Each case: a heading, its anchor.
  it.each([
    ['3. Create the namespace and the Secret', '3-create-the-namespace-and-the-secret'],
    ['Who may use `/rwx`', 'who-may-use-rwx'],
    ['Driver -> DaemonSet overrides', 'driver---daemonset-overrides'],
  ])('slug(%s)', (h, s) => expect(slug(h)).toBe(s));

  it.each(DOCS)('%s: relative links resolve', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
    const bad: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? '';
      if (/^[a-z]+:/.test(target)) continue; // absolute URLs
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? doc : join(dirname(doc), path);
      if (!existsSync(join(ROOT, file))) {
        bad.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchors(file).has(anchor))
        bad.push(`${target}: no heading #${anchor} in ${file}`);
    }
    expect(bad).toEqual([]);
  });
});
