// `rwx sim`: the kubeconfig path is the first line of stdout, the server answers until stopped, flags are checked.
import { describe, expect, test } from 'vitest';
import { readFile } from 'node:fs/promises';
import { main } from '../../src/cli/main.js';
import { runSim } from '../../src/cli/sim.js';
import { until } from '../support/until.js';

function memoryIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s) },
      stdin: process.stdin,
      env: {},
    },
    out,
    err,
  };
}

describe('rwx sim', () => {
  test('prints the kubeconfig path first and serves the scenario until stopped', async () => {
    const { io, out } = memoryIo();
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const done = runSim(['scenarios/node-fault.yaml', '--speed', '60'], io, stopped);
    await until(() => out.length > 0, 'the kubeconfig path');
    const path = out[0]?.trim() ?? '';
    expect(out[0]).toMatch(/kubeconfig\n$/);
    const kubeconfig = await readFile(path, 'utf8');
    const server = /server: (\S+)/.exec(kubeconfig)?.[1];
    expect(kubeconfig).toContain('current-context: sim');
    const nodes = (await (await fetch(`${server}/api/v1/nodes`)).json()) as { items: unknown[] };
    expect(nodes.items).toHaveLength(12);
    stop();
    expect(await done).toBe(0);
  });

  test('prints where the fault knobs are, on --admin-port when given', async () => {
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const { io, out, err } = memoryIo();
    let stop!: () => void;
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const done = runSim(['scenarios/node-fault.yaml', '--admin-port', String(port)], io, stopped);
    await until(() => err.length >= 2, 'where the fault knobs are');
    expect(err[1]).toBe(`rwx sim: fault knobs at http://127.0.0.1:${port}/faults\n`);
    const knob = await fetch(`http://127.0.0.1:${port}/faults`, {
      method: 'POST',
      body: JSON.stringify({ fault: 'respond', status: 503 }),
    });
    expect(knob.status).toBe(200);
    const server = /server: (\S+)/.exec(await readFile(out[0]?.trim() ?? '', 'utf8'))?.[1];
    expect((await fetch(`${server}/api/v1/nodes`)).status).toBe(503);
    stop();
    expect(await done).toBe(0);
  });

  const usage: [string[], RegExp][] = [
    // no scenario
    [[], /exactly one SCENARIO_FILE/],
    // a port that is not a number
    [['x.yaml', '--port', 'abc'], /--port: abc is not a port number/],
    // an admin port that is not a number
    [['x.yaml', '--admin-port', '1.5'], /--admin-port: 1.5 is not a port number/],
    // speed zero
    [['x.yaml', '--speed', '0'], /--speed: 0 is not a number above 0/],
    // an unknown flag
    [['x.yaml', '--nope'], /unknown flag --nope/],
    // a missing file
    [['/nonexistent.yaml'], /cannot read scenario \/nonexistent.yaml/],
  ];
  test.each(usage)('rwx sim %j fails with one clear line', async (args, message) => {
    const { io, err } = memoryIo();
    expect(await main(['sim', ...args], io)).toBe(1);
    expect(err[0]).toMatch(message);
  });
});

test('rwx sim --port on a busy port is one clear line', async () => {
  const { createServer } = await import('node:net');
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as { port: number }).port;
  const { io, err } = memoryIo();
  expect(await main(['sim', 'scenarios/node-fault.yaml', '--port', String(port)], io)).toBe(1);
  expect(err[0]).toBe(`rwx sim: port ${port} is already in use\n`);
  busy.close();
});
