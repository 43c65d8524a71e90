// Watches with the API server's semantics: one JSON event per line on a chunked 200 response; ADDED / MODIFIED /
// DELETED (an object leaving a selector's selection is DELETED for that watch); BOOKMARK every minute of sim time
// when allowWatchBookmarks; an ERROR event carrying a 410 Status, then the end of the stream, when the requested
// resourceVersion is older than the retained history; the stream ends at timeoutSeconds (sim time).
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../domain/objects.js';
import type { Clock } from '../domain/clock.js';
import type { Change, ObjectStore } from './store.js';
import type { Matcher } from './selectors.js';
import type { Faults } from './faults.js';
import { expired, statusBody } from './status.js';

/** How often an idle watch with bookmarks enabled receives a BOOKMARK (sim time). */
export const BOOKMARK_INTERVAL_MS = 60_000;

/** What a watch request asked for, already parsed. */
export interface WatchRequest {
  res: string;
  kind: string;
  apiVersion: string;
  match: Matcher;
  /** The `resourceVersion` parameter; '' or '0' start with the current state as ADDED events. */
  resourceVersion: string;
  bookmarks: boolean;
  timeoutSeconds?: number;
  /** sendInitialEvents=true: the initial ADDED events end with a BOOKMARK annotated k8s.io/initial-events-end. */
  sendInitialEvents: boolean;
  /** Renders event objects (kubectl's Table watches); BOOKMARK and ERROR objects are sent as they are. */
  render?: (o: KubeObject) => unknown;
}

interface OpenWatch extends WatchRequest {
  out: ServerResponse;
  deadline?: number;
  lastBookmark: number;
  held: string[];
}

/** All open watch streams; fed by the store, driven by the sim clock through tick(). */
export class WatchHub {
  private readonly open = new Set<OpenWatch>();

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: Clock,
    private readonly faults: Faults,
  ) {
    store.subscribe((c) => this.onChange(c));
    faults.onDrop = () => this.dropAll();
    faults.onResume = () => this.flushHeld();
  }

  /** Number of open watch streams. */
  get size(): number {
    return this.open.size;
  }

  /** Starts a watch stream on `out` (status 200 is sent at once). */
  start(req: WatchRequest, out: ServerResponse): void {
    out.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    out.flushHeaders();
    const now = this.clock.now();
    const w: OpenWatch = {
      ...req,
      out,
      lastBookmark: now,
      held: [],
      ...(req.timeoutSeconds !== undefined ? { deadline: now + req.timeoutSeconds * 1000 } : {}),
    };
    const rv = req.resourceVersion;
    if (rv === '' || rv === '0') {
      for (const o of this.store.list(req.res)) if (req.match(o)) this.send(w, 'ADDED', o);
      if (req.sendInitialEvents) this.bookmark(w, true);
    } else {
      const since = this.store.since(req.res, Number(rv));
      if (since === 'expired' || Number.isNaN(Number(rv))) {
        const e = expired(rv, this.store.oldestServable());
        this.send(w, 'ERROR', statusBody(e.code, e.reason, e.message) as KubeObject);
        out.end();
        return;
      }
      for (const c of since) this.deliver(w, c);
    }
    this.open.add(w);
    out.on('close', () => this.open.delete(w));
  }

  /** Sends due bookmarks and ends watches past their timeout. Called after the sim clock moves. */
  tick(now: number): void {
    if (this.faults.stalled) return;
    for (const w of [...this.open]) {
      if (w.deadline !== undefined && now >= w.deadline) {
        if (w.bookmarks) this.bookmark(w);
        this.close(w);
        continue;
      }
      if (w.bookmarks && now - w.lastBookmark >= BOOKMARK_INTERVAL_MS) this.bookmark(w);
    }
  }

  /** Ends every watch cleanly (server shutdown). */
  closeAll(): void {
    for (const w of [...this.open]) this.close(w);
  }

  /** Cuts every watch connection without ending the chunked body: the client sees a broken stream. */
  dropAll(): void {
    for (const w of [...this.open]) {
      this.open.delete(w);
      w.out.socket?.destroy();
      w.out.destroy();
    }
  }

  private close(w: OpenWatch): void {
    this.open.delete(w);
    w.out.end();
  }

  private onChange(c: Change): void {
    for (const w of this.open) if (w.res === c.res) this.deliver(w, c);
  }

  private deliver(w: OpenWatch, c: Change): void {
    const is = w.match(c.obj);
    if (c.type === 'MODIFIED') {
      const was = c.prev ? w.match(c.prev) : true;
      if (was && is) this.send(w, 'MODIFIED', c.obj);
      else if (is) this.send(w, 'ADDED', c.obj);
      else if (was) this.send(w, 'DELETED', c.obj);
    } else if (is) this.send(w, c.type, c.obj);
  }

  private bookmark(w: OpenWatch, initialEnd = false): void {
    w.lastBookmark = this.clock.now();
    const metadata: Record<string, unknown> = { resourceVersion: String(this.store.currentRv()) };
    if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    this.send(w, 'BOOKMARK', { kind: w.kind, apiVersion: w.apiVersion, metadata } as KubeObject);
  }

  private send(w: OpenWatch, type: string, obj: KubeObject): void {
    const object = w.render && type !== 'BOOKMARK' && type !== 'ERROR' ? w.render(obj) : obj;
    const line = `${JSON.stringify({ type, object })}\n`;
    if (this.faults.stalled) w.held.push(line);
    else w.out.write(line);
  }

  private flushHeld(): void {
    for (const w of this.open) {
      for (const line of w.held.splice(0)) w.out.write(line);
    }
  }
}
