// Redis killed (SIGKILL: no shutdown save, the append-only file as it stood) for a realistic 20 s under a running
// `rwx serve`, then started again; the checks are outage() in redis-outage.ts.
import { afterEach, describe, it } from 'vitest';
import { redisServerTool } from './own-redis.js';
import { cleanUp, outage } from './redis-outage.js';

afterEach(cleanUp);

describe.runIf(redisServerTool.run)(`Redis killed and started again, with persistence${redisServerTool.note}`, () => {
  it('SIGKILL for 20 s: live throughout, not ready naming Redis, back to work within 10 s', async () => {
    await outage('SIGKILL', 20_000);
  }, 60_000);
});
