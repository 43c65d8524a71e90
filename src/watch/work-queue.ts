// A deduplicating work queue in the style of client-go's workqueue (sample-controller): watch handlers only add
// keys; a worker takes keys and reads the cache. A key added many times before it is processed is processed
// once; a key added while it is being processed is processed again afterwards, never concurrently.

/** FIFO of distinct keys with "dirty while processing" semantics. Single-threaded (one event loop). */
export class WorkQueue {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private waiter: (() => void) | undefined;
  private shutDown = false;

  /** Adds a key unless it is already waiting; wakes a waiting worker. */
  add(key: string): void {
    if (this.shutDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return; // re-queued by done()
    this.queue.push(key);
    this.wake();
  }

  /** Takes the next key, or undefined when none is waiting. Call done(key) when finished with it. */
  get(): string | undefined {
    while (this.head < this.queue.length) {
      const key = this.queue[this.head++] as string;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.dirty.delete(key);
      this.processing.add(key);
      return key;
    }
    return undefined;
  }

  /** Marks a key finished; if it was added meanwhile it goes back in the queue. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.queue.push(key);
      this.wake();
    }
  }

  /** Keys waiting (the queue-depth metric). */
  get length(): number {
    return this.queue.length - this.head;
  }

  /** Resolves when a key is waiting or the queue is shut down. */
  wait(): Promise<void> {
    if (this.length > 0 || this.shutDown) return Promise.resolve();
    return new Promise((resolve) => {
      const prev = this.waiter;
      this.waiter = () => {
        prev?.();
        resolve();
      };
    });
  }

  /** Stops accepting keys and releases waiters. */
  shutdown(): void {
    this.shutDown = true;
    this.wake();
  }

  /** Whether shutdown() was called. */
  get isShutDown(): boolean {
    return this.shutDown;
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
