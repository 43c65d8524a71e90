// The bot's side of the simulator: what `rwx demo` and `rwx sim` use of the package matches the package (checked by
// the compiler), errors come back as the bot's own, and a missing package is one line.
import { describe, expect, test } from 'vitest';
import * as kubeSim from '@rwx/kube-sim';
import { fromSimError, loadSimulator, type SimulatorModule } from '../../src/serve/simulator.js';
import { RwxError } from '../../src/errors.js';

// Compile-time: the package satisfies the narrow interface the bot declares for it (npm run typecheck fails if not).
const used: SimulatorModule<kubeSim.Scenario> = kubeSim;

describe('loading the simulator', () => {
  test('the workspace package provides what the bot calls', () => {
    expect(typeof used.loadScenario).toBe('function');
    expect(typeof used.startSimulator).toBe('function');
  });

  const mapped: [kubeSim.SimErrorCode, string][] = [
    // a bad scenario is bad input
    ['SCENARIO', 'INPUT'],
    // a busy port is a usage error
    ['PORT_IN_USE', 'USAGE'],
    // no certificate: the bot cannot do anything about it
    ['TLS', 'INTERNAL'],
  ];
  test.each(mapped)('a %s error becomes the bot error %s with its message', (code, expected) => {
    const out = fromSimError(new kubeSim.SimError(code, 'what happened'));
    expect(out).toBeInstanceOf(RwxError);
    expect(out).toMatchObject({ code: expected, message: 'what happened' });
  });

  test('other errors pass through unchanged', () => {
    const e = new Error('boom');
    expect(fromSimError(e)).toBe(e);
  });

  test('loaded functions throw the bot errors: a missing scenario file is INPUT', async () => {
    const sim = await loadSimulator();
    await expect(sim.loadScenario('/nonexistent/scenario.yaml')).rejects.toMatchObject({
      code: 'INPUT',
      message: expect.stringContaining('/nonexistent/scenario.yaml'),
    });
  });

  test('a package that is not installed is one NOT_FOUND line saying the simulator is a test tool', async () => {
    await expect(loadSimulator('@rwx/kube-sim-not-installed')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/^the Kubernetes API simulator is a test tool and is not shipped in this image/),
    });
  });
});
