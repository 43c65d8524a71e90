// The log stream of a real `rwx serve` process is JSON lines only: the Slack SDK's own output (Bolt, web-api,
// Socket Mode) goes through pino like ours, also at debug level where the SDK is chattiest, and also for genuine
// warnings: an event Bolt cannot classify, and BullMQ's console warning about a Redis that may evict keys (its own
// redis-server on a free port, with allkeys-lru). Child process on the compiled CLI, Socket Mode against the fake
// server, the simulator over HTTP.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { LogLevel } from '@slack/bolt';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger, slackLogger } from '../../src/serve/log.js';
import { startFakeSocketMode, type FakeSocketMode } from '../support/fake-socket-mode.js';
import { until } from '../support/until.js';
import { freePort } from '../support/free-port.js';
import { openWorld, type World } from '../support/world.js';
import { ownRedis, redisServerTool, type OwnRedis } from '../faults/own-redis.js';

const BIN = join(import.meta.dirname, '../../bin/rwx.js');
let world: World | undefined;
let socket: FakeSocketMode | undefined;
let redis: OwnRedis | undefined;
afterEach(async () => {
  await socket?.close();
  await world?.close();
  await redis?.stop('SIGTERM');
});

describe('slackLogger', () => {
  it('one JSON line per SDK call, at its level; pino decides the level, not the SDK', () => {
    const lines: string[] = [];
    const dest = new Writable({
      write(c: Buffer, _e, cb) {
        lines.push(c.toString());
        cb();
      },
    });
    const sdk = slackLogger(createLogger('info', dest as never), 'web-api');
    sdk.setLevel(LogLevel.DEBUG); // ignored
    sdk.setName('web-api:WebClient:3'); // ignored
    expect(sdk.getLevel()).toBe(LogLevel.INFO);
    sdk.debug('not shown');
    sdk.warn('chat.postMessage warnings:', ['missing_charset'], new Error('with xoxb-123-secret'));
    expect(lines.map((l) => JSON.parse(l) as object)).toEqual([
      expect.objectContaining({
        level: 40,
        component: 'slack',
        sdk: 'web-api',
        msg: 'chat.postMessage warnings: ["missing_charset"] with [REDACTED]',
      }),
    ]);
  });
});

describe.runIf(redisServerTool.run)(`rwx serve log stream${redisServerTool.note}`, () => {
  it('every line on stdout and stderr is one JSON object, the Slack SDK and BullMQ included', async () => {
    redisServerTool.check();
    const own = (redis = await ownRedis(false, ['--maxmemory-policy', 'allkeys-lru']));
    // rwx serve does not wait for Redis at start (a clear error instead): let this one answer first.
    await own.start();
    const w = (world = await openWorld({
      name: 'logs',
      scenario: 'scenarios/cni-sandbox.yaml',
      clock: new ManualClock(Date.parse('2026-11-30T09:15:00Z')),
      redisUrl: () => own.url,
      ownRedis: true,
    }));
    socket = await startFakeSocketMode();
    w.slack.socketModeUrl = socket.url;
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'serve', '--kubeconfig', w.sim.kubeconfigPath], {
      env: {
        PATH: process.env.PATH,
        ...w.env({
          SLACK_BOT_TOKEN: 'xoxb-logs-test-secret',
          SLACK_APP_TOKEN: 'xapp-1-logs-test-secret',
          PORT: String(port),
          LOG_LEVEL: 'debug',
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await socket.connected;
      await until(async () => {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return r?.status === 200;
      }, '/readyz 200');
      // An envelope Bolt cannot classify: it warns, through its logger (and never acks it).
      socket.send('interactive', { type: 'mystery' }, 1000).catch(() => undefined);
      await until(() => /Could not determine the type/.test(stdout + stderr), 'the SDK warning');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);

    const lines = (stdout + stderr).split('\n').filter((l) => l.trim() !== '');
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(stderr).toBe(''); // the JSON stream is stdout; nothing else is written beside it
    const entries = lines.map((l) => JSON.parse(l) as { level: number; component?: string; sdk?: string; msg: string });
    const warning = entries.find((e) => /Could not determine the type/.test(e.msg));
    expect(warning).toMatchObject({ level: 40, component: 'slack', sdk: 'bolt' });
    const eviction = entries.find((e) => /Eviction policy is allkeys-lru/.test(e.msg));
    expect(eviction).toMatchObject({ level: 40, component: 'console' });
    // The SDK's debug output (Socket Mode frames, Web API calls) is there too, as JSON.
    expect(entries.filter((e) => e.component === 'slack' && e.level === 20).length).toBeGreaterThan(0);
    expect(stdout).not.toMatch(/logs-test-secret/);
  });
});
