// How long a connection's requests may take, and who is told while one waits: kubectl's --request-timeout (the
// whole exchange, 0: no limit), and a word on stderr when the API server has not answered after a few seconds, so
// a blackholed address is not a silent minute. Watches are exempt: a watch is long-lived by design.
import type http from 'node:http';
import { RwxError } from '../errors.js';

/** What a connection was told about waiting; every field is optional. */
export interface Patience {
  /** Give up on a request not completed within this (ms). 0: never. Unset: after IDLE_LIMIT_MS of silence. */
  timeoutMs?: number;
  /** Called once per connection when a request has had no answer for `noticeAfterMs`. */
  onWaiting?: (notice: { server: string; waitedMs: number }) => void;
  /** Default NOTICE_AFTER_MS. */
  noticeAfterMs?: number;
}

/** Without a --request-timeout, a request is given up after this long without a byte (the default of old). */
export const IDLE_LIMIT_MS = 60_000;

/** Without an answer after this long, a waiting command says what it is waiting for. */
export const NOTICE_AFTER_MS = 3_000;

/** Applies a connection's patience to one request; `fail` ends the request with an error. */
export type Guard = (req: http.ClientRequest, fail: (e: unknown) => void) => void;

/** The guard of one connection to `server`: its timeout, and its notice said at most once. */
export function patienceGuard(server: string, p: Patience = {}): Guard {
  let told = false;
  return (req, fail) => {
    const timers: NodeJS.Timeout[] = [];
    const limit = p.timeoutMs;
    if (limit === undefined) {
      req.setTimeout(IDLE_LIMIT_MS, () =>
        req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })),
      );
    } else if (limit > 0) {
      timers.push(
        setTimeout(() => {
          fail(
            new RwxError(
              'TIMEOUT',
              `no answer from the API server at ${server} within ${shownMs(limit)} (--request-timeout)`,
            ),
          );
          req.destroy();
        }, limit),
      );
    }
    const onWaiting = p.onWaiting;
    if (onWaiting && !told) {
      const after = p.noticeAfterMs ?? NOTICE_AFTER_MS;
      const notice = setTimeout(() => {
        if (told) return;
        told = true;
        onWaiting({ server, waitedMs: after });
      }, after);
      timers.push(notice);
      req.once('response', () => clearTimeout(notice));
    }
    req.once('close', () => timers.forEach(clearTimeout));
  };
}

/** A duration as a flag would give it: 250ms, 5s, 90s. */
export function shownMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
