// Wraps a SlackApi to report every call's method and outcome (for metrics such as "Slack calls by method and
// outcome", and the audit trail: audit.ts), without changing what the call returns or throws.
import { performance } from 'node:perf_hooks';
import { toRwxError } from '../errors.js';
import type { SlackApi } from './api.js';

/** Outcome of one Slack call: 'ok' or the RwxError code it failed with. */
export type SlackCallOutcome = 'ok' | 'SLACK_RATE_LIMITED' | 'SLACK_API' | string;

/** One call as made: its arguments, its result when it succeeded, and its duration in ms. */
export interface SlackCall {
  args: readonly unknown[];
  result?: unknown;
  ms: number;
}

/** Returns a SlackApi that calls `observe(method, outcome, call)` after each call of `inner`. */
export function instrumentSlack(
  inner: SlackApi,
  observe: (method: keyof SlackApi, outcome: SlackCallOutcome, call?: SlackCall) => void,
): SlackApi {
  const wrap =
    <A extends unknown[], R>(method: keyof SlackApi, fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const start = performance.now();
      const ms = (): number => Math.round(performance.now() - start);
      try {
        const result = await fn(...a);
        observe(method, 'ok', { args: a, result, ms: ms() });
        return result;
      } catch (e) {
        observe(method, toRwxError(e).code, { args: a, ms: ms() });
        throw e;
      }
    };
  return {
    postMessage: wrap('postMessage', (a) => inner.postMessage(a)),
    update: wrap('update', (a) => inner.update(a)),
    postEphemeral: wrap('postEphemeral', (a) => inner.postEphemeral(a)),
    findRootByIncidentKey: wrap('findRootByIncidentKey', (c: string, k: string, s?: number) =>
      inner.findRootByIncidentKey(c, k, s),
    ),
    findThreadReply: wrap('findThreadReply', (c: string, t: string, k: string, r: string) =>
      inner.findThreadReply(c, t, k, r),
    ),
    permalink: wrap('permalink', (c: string, t: string) => inner.permalink(c, t)),
    uploadFile: wrap('uploadFile', (a) => inner.uploadFile(a)),
  };
}
