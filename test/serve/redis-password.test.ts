// REDIS_PASSWORD against a real Redis that requires one (its own redis-server on a free port): the connection and
// its duplicates (BullMQ's, the slash commands') authenticate; without the password nothing starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/serve/redis.js';
import { toolGate } from '../tools.js';
import { until } from '../support/until.js';
import { freePort } from '../support/free-port.js';

const server = toolGate('redis-server', ['--version']);
let child: ChildProcess | undefined;
let port = 0;

describe.runIf(server.run)(`REDIS_PASSWORD${server.note}`, () => {
  beforeAll(async () => {
    server.check();
    port = await freePort();
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--requirepass', 'pw 1@/x'],
      {
        stdio: 'ignore',
      },
    );
    await until(async () => {
      try {
        (await connectRedis(`redis://127.0.0.1:${port}`, { timeoutMs: 500, password: 'pw 1@/x' })).disconnect();
        return true;
      } catch {
        return false;
      }
    }, 'redis-server with a password');
  });
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('authenticates the connection and its duplicates; any string works, no URL escaping', async () => {
    const redis = await connectRedis(`redis://127.0.0.1:${port}`, { password: 'pw 1@/x' });
    const dup = redis.duplicate({ maxRetriesPerRequest: null });
    try {
      expect(await redis.ping()).toBe('PONG');
      expect(await dup.ping()).toBe('PONG');
    } finally {
      dup.disconnect();
      redis.disconnect();
    }
  });

  it('without it, start-up fails with REDIS_UNREACHABLE naming the cause', async () => {
    await expect(connectRedis(`redis://127.0.0.1:${port}`)).rejects.toMatchObject({
      code: 'REDIS_UNREACHABLE',
      message: expect.stringMatching(/refused to authenticate \(NOAUTH.*set REDIS_PASSWORD/),
    });
  });
});
