import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../src/watch/work-queue.js';

describe('WorkQueue', () => {
  it('deduplicates keys waiting to be processed and keeps FIFO order', () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(q.get()).toBe('a');
    expect(q.get()).toBe('b');
    expect(q.get()).toBeUndefined();
  });

  it('re-queues a key added while it was processing, only after done()', () => {
    const q = new WorkQueue();
    q.add('a');
    const k = q.get() as string;
    q.add('a');
    expect(q.get()).toBeUndefined(); // never handed out twice at once
    q.done(k);
    expect(q.get()).toBe('a');
  });

  it('wakes a waiting worker and stops accepting keys after shutdown', async () => {
    const q = new WorkQueue();
    const waited = q.wait();
    q.add('x');
    await waited;
    expect(q.get()).toBe('x');
    q.shutdown();
    q.add('y');
    expect(q.length).toBe(0);
    await q.wait(); // resolves at once when shut down
  });
});
