// Wraps a SlackApi to report every call's method and outcome (for metrics such as "Slack calls by method and
// outcome"), without changing what the call returns or throws.
import { toRwxError } from '../errors.js';
import type { SlackApi } from './api.js';

/** Outcome of one Slack call: 'ok' or the RwxError code it failed with. */
export type SlackCallOutcome = 'ok' | 'SLACK_RATE_LIMITED' | 'SLACK_API' | string;

/** Returns a SlackApi that calls `observe(method, outcome)` after each call of `inner`. */
export function instrumentSlack(
  inner: SlackApi,
  observe: (method: keyof SlackApi, outcome: SlackCallOutcome) => void,
): SlackApi {
  const wrap =
    <A extends unknown[], R>(method: keyof SlackApi, fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        const r = await fn(...a);
        observe(method, 'ok');
        return r;
      } catch (e) {
        observe(method, toRwxError(e).code);
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
