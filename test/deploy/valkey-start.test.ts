// deploy/components/redis/start.sh, which starts the bundled Valkey (kustomize and the chart), run for real with
// redis-server and redis-cli standing in for valkey-server and valkey-cli (same config grammar, same `include`):
// the password from the mounted file is required by the server, even with quotes, backslashes and spaces in it;
// it is on no process's command line; `start.sh ping` answers only with the right password; an empty file refuses.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { until } from '../support/until.js';
import { toolGate } from '../tools.js';
import { DEPLOY } from './manifests.js';

const SCRIPT = join(DEPLOY, 'components/redis/start.sh');
const REDIS = toolGate('redis-server', ['--version']);
const PASSWORD = `pa"ss\\wo rd'${'x'.repeat(20)}`;

const started: { child: ChildProcess; dir: string }[] = [];
afterEach(() => {
  for (const s of started.splice(0)) {
    s.child.kill('SIGKILL');
    rmSync(s.dir, { recursive: true, force: true });
  }
});

/** A directory with the password file, a config that includes the generated file, and valkey-* names for redis-*. */
async function setUp(password: string) {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-valkey-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(
    spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim(),
    join(bin, 'valkey-server'),
  );
  symlinkSync(
    spawnSync('sh', ['-c', 'command -v redis-cli'], { encoding: 'utf8' }).stdout.trim(),
    join(bin, 'valkey-cli'),
  );
  const port = await freePort();
  writeFileSync(join(dir, 'password'), `${password}\n`);
  chmodSync(join(dir, 'password'), 0o400);
  writeFileSync(
    join(dir, 'valkey.conf'),
    `port ${port}\nbind 127.0.0.1\nsave ""\nappendonly no\ninclude ${dir}/auth.conf\n`,
  );
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    VALKEY_PASSWORD_FILE: join(dir, 'password'),
    VALKEY_AUTH_CONF: join(dir, 'auth.conf'),
    VALKEY_CONF: join(dir, 'valkey.conf'),
    VALKEY_PORT: String(port),
  };
  return { dir, port, env };
}

/** redis-cli with the password given through the environment (REDISCLI_AUTH), or none. */
function cli(port: number, password: string | undefined, ...args: string[]): string {
  const { REDISCLI_AUTH: _, ...rest } = process.env;
  const env = password === undefined ? rest : { ...rest, REDISCLI_AUTH: password };
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', env }).stdout.trim();
}

describe.runIf(REDIS.run)(`start.sh (the bundled Valkey's entry point)${REDIS.note}`, () => {
  it('requires the password from the file, which no command line shows; ping checks it', async () => {
    REDIS.check();
    const { dir, port, env } = await setUp(PASSWORD);
    const child = spawn('sh', [SCRIPT], { env, stdio: 'ignore' });
    started.push({ child, dir });
    await until(() => cli(port, PASSWORD, 'ping') === 'PONG', 'the server answering', 10_000);
    expect(cli(port, undefined, 'ping')).toMatch(/NOAUTH/);
    expect(cli(port, 'wrong', 'ping')).not.toBe('PONG');
    // every process's argv: the server (exec'd from the script, same pid) and anything else
    const argvs = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .map((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      });
    expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')).toMatch(/^valkey-server /);
    expect(argvs.filter((a) => a.includes('wo rd'))).toEqual([]);
    expect(spawnSync('sh', [SCRIPT, 'ping'], { env }).status).toBe(0);
    writeFileSync(join(dir, 'password'), 'not-it\n');
    expect(spawnSync('sh', [SCRIPT, 'ping'], { env }).status).not.toBe(0);
  });

  it('refuses to start Valkey without a password', async () => {
    REDIS.check();
    const { dir, env } = await setUp('');
    const r = spawnSync('sh', [SCRIPT], { env, encoding: 'utf8', timeout: 10_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is empty: Valkey would run without a password/);
  });
});
