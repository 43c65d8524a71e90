// Redis killed (SIGKILL: no shutdown save, the append-only file as it stood) under a running `rwx serve` for
// OUTAGE_MS (past RWX_BLIND_AFTER, see redis-outage.ts), then started again; the checks are outage() there.
import { afterEach, describe, it } from 'vitest';
import { redisServerTool } from './own-redis.js';
import { cleanUp, outage } from './redis-outage.js';

afterEach(cleanUp);

describe.runIf(redisServerTool.run)(`Redis killed and started again, with persistence${redisServerTool.note}`, () => {
  it('SIGKILL past RWX_BLIND_AFTER: live throughout, not ready naming Redis, back to work within 10 s', async () => {
    await outage('SIGKILL');
  }, 60_000);
});
