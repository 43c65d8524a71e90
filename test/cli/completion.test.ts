// `rwx completion bash|zsh`: the scripts parse (bash -n, zsh -n), list every command and every flag of the command
// table, and bash's really completes: the script is sourced and asked, as bash asks it on TAB.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bashScript, zshScript } from '../../src/cli/completion.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { toolGate } from '../tools.js';

const dir = mkdtempSync(join(tmpdir(), 'rwx-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bash = join(dir, 'rwx.bash');
writeFileSync(bash, bashScript());
const zsh = join(dir, '_rwx');
writeFileSync(zsh, zshScript());

const everyFlag = Object.entries(COMMANDS).flatMap(([c, s]) => Object.keys(s.flags).map((f) => [c, f] as const));

/** What the bash completion offers for the words typed so far (the last one is being completed). */
function complete(...words: string[]): string[] {
  const script = `source ${bash}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _rwx; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin' },
    cwd: dir,
  });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('rwx completion bash', () => {
  it('is valid bash (bash -n)', () => {
    const r = spawnSync('bash', ['-n', bash], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('completes every command, and every flag of each', () => {
    expect(complete('rwx', '').sort()).toEqual([...Object.keys(COMMANDS), '--help', '--version'].sort());
    expect(complete('rwx', 'dr')).toEqual(['drain-check']);
    for (const [command, flag] of everyFlag) expect(complete('rwx', command, '--')).toContain(`--${flag}`);
  });

  it('completes the values of -o and other fixed choices, and files', () => {
    expect(complete('rwx', 'triage', '-o', '').sort()).toEqual(['json', 'name', 'table', 'wide', 'yaml']);
    expect(complete('rwx', 'gate', '--access-mode', 'ReadWriteM')).toEqual(['ReadWriteMany']);
    expect(complete('rwx', 'completion', '')).toEqual(['bash', 'zsh']);
    writeFileSync(join(dir, 'snap.json'), '{}');
    expect(complete('rwx', 'scan', '--snapshot', 'sna')).toEqual(['snap.json']);
  });

  it('offers nothing after a flag whose value it cannot know (and no flags there)', () => {
    expect(complete('rwx', 'triage', '--driver', '')).toEqual([]);
  });
});

const zshGate = toolGate('zsh', ['--version']);

describe(`rwx completion zsh${zshGate.note}`, () => {
  it.runIf(zshGate.run)('is valid zsh (zsh -n)', () => {
    zshGate.check();
    const r = spawnSync('zsh', ['-n', zsh], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('describes every command and lists every flag of each', () => {
    const text = zshScript();
    for (const c of Object.keys(COMMANDS)) expect(text).toMatch(new RegExp(`^    '${c}:`, 'm'));
    for (const [command, flag] of everyFlag) {
      const section = text.slice(
        text.indexOf(`\n    ${command})\n`),
        text.indexOf(';;', text.indexOf(`\n    ${command})\n`)),
      );
      expect(section, `${command} --${flag}`).toContain(`--${flag}`);
    }
  });
});
