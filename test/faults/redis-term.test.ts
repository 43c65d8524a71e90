// Redis stopped (SIGTERM: it saves and closes its clients' connections, unlike a kill) under a running
// `rwx serve`, then started again; the checks are outage() in redis-outage.ts. As long as redis-kill's outage:
// what differs from a kill is how it ends, not how long it lasts.
import { afterEach, describe, it } from 'vitest';
import { redisServerTool } from './own-redis.js';
import { cleanUp, outage } from './redis-outage.js';

afterEach(cleanUp);

describe.runIf(redisServerTool.run)(`Redis stopped and started again, with persistence${redisServerTool.note}`, () => {
  it('SIGTERM past RWX_BLIND_AFTER: live throughout, not ready naming Redis, back to work within 10 s', async () => {
    await outage('SIGTERM');
  }, 60_000);
});
