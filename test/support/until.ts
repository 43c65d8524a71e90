// The one way a test waits for I/O (HTTP, Redis, BullMQ, a child process): poll a condition, never sleep for time.

/** Polls `cond` every 10 ms until it is true; throws naming `what` after `ms` of wall time. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
