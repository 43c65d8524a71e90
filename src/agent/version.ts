// The version the agent reports: package.json's, read once (two directories up from both src/agent and dist/agent).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** This build's version, "0.0.0" when package.json cannot be read. */
export function agentVersion(): string {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version?: string;
      };
      cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}
