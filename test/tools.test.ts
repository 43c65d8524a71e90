// When a test's external tool must be present (and its tests fail rather than skip without it).
import { describe, expect, it } from 'vitest';
import { toolGate, toolRequired } from './tools.js';

describe('toolRequired', () => {
  // Each case: the environment, whether helm is required.
  it.each([
    [{}, false], // a developer machine
    [{ CI: 'true' }, true],
    [{ CI: '1' }, true],
    [{ CI: 'false' }, false],
    [{ CI: '' }, false],
    [{ RWX_REQUIRE_TOOLS: 'kubectl helm promtool' }, true], // what .ci/run sets
    [{ RWX_REQUIRE_TOOLS: 'kubectl,promtool' }, false], // another tool listed
  ])('%j -> %s', (env, want) => {
    expect(toolRequired('helm', env)).toBe(want);
  });
});

describe('toolGate', () => {
  it('a missing tool skips where not required, and runs to a clear failure where it is', () => {
    const skipped = toolGate('rwx-no-such-tool', ['--version'], {});
    expect(skipped).toMatchObject({ run: false, note: ' (skipped: rwx-no-such-tool not on PATH)' });
    const required = toolGate('rwx-no-such-tool', ['--version'], { CI: 'true' });
    expect(required.run).toBe(true);
    expect(() => required.check()).toThrow(/rwx-no-such-tool is not installed .*; \.ci\/run installs it/);
  });

  it('a tool that answers runs, with no note', () => {
    const node = toolGate(process.execPath, ['--version'], {});
    expect(node).toMatchObject({ run: true, note: '' });
    expect(() => node.check()).not.toThrow();
  });
});
