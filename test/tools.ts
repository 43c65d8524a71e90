// External tools some tests run (kubectl, helm, promtool). On a developer machine without one, its tests are
// skipped, with the reason in the test name; where the tool is expected (CI, or RWX_REQUIRE_TOOLS, which .ci/run
// sets after installing them) they run anyway and fail with a message saying what is missing, so a broken
// install step cannot pass as a green run.
import { spawnSync } from 'node:child_process';

/** How a test file should treat one tool. */
export interface ToolGate {
  /** Whether the tests run: the tool answers, or it is required here. */
  run: boolean;
  /** Suffix for a describe() title: "" when the tool is there, else why the tests are skipped or will fail. */
  note: string;
  /** Throws a clear error when the tool is missing (call it first in the tests, or in beforeAll). */
  check(): void;
}

/** Whether `tool` must be present: CI is set (not "false"/"0"), or RWX_REQUIRE_TOOLS lists it. */
export function toolRequired(tool: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return ci || (env.RWX_REQUIRE_TOOLS ?? '').split(/[\s,]+/).includes(tool);
}

/** Whether `tool args...` runs and exits 0. */
export function toolAnswers(tool: string, args: string[]): boolean {
  const r = spawnSync(tool, args, { stdio: 'ignore', timeout: 10_000 });
  return r.error === undefined && r.status === 0;
}

/** The gate for `tool`, probed with `args` (e.g. ['--version']). */
export function toolGate(tool: string, args: string[], env: NodeJS.ProcessEnv = process.env): ToolGate {
  const present = toolAnswers(tool, args);
  const required = toolRequired(tool, env);
  const missing = `${tool} is not installed or does not run (\`${[tool, ...args].join(' ')}\` failed); .ci/run installs it`;
  return {
    run: present || required,
    note: present ? '' : required ? ` (FAILING: ${tool} missing)` : ` (skipped: ${tool} not on PATH)`,
    check() {
      if (!present) throw new Error(missing);
    },
  };
}
