// Watches with the API server's semantics: one JSON event per line on a chunked 200 response; ADDED / MODIFIED /
// DELETED (an object leaving a selector's selection is DELETED for that watch); a BOOKMARK every bookmark interval
// of sim time (a minute by default, as the API server's watch cache does) when allowWatchBookmarks; an ERROR event
// carrying a 410 Status, then the end of the stream, when the requested resourceVersion is older than the
// retained history; the stream ends at timeoutSeconds (sim time). Faults decide per stream whether bytes flow,
// are held (stalled) or vanish (half-open), and can drop, cut or expire open streams.
import type { ServerResponse } from 'node:http';
import type { Clock } from './clock.js';
import type { KubeObject } from './objects.js';
import type { Change, ObjectStore } from './store.js';
import type { Matcher } from './selectors.js';
import type { Faults, Scope } from './faults.js';
import { expired, statusBody } from './status.js';

/** How often an idle watch with bookmarks enabled receives a BOOKMARK by default (sim time). */
export const BOOKMARK_INTERVAL_MS = 60_000;

/** What a watch request asked for, already parsed. */
export interface WatchRequest {
  /** Store key ("apps/daemonsets"). */
  res: string;
  /** Plural resource name, for fault scopes. */
  resource: string;
  /** The client that opened it, for fault scopes. */
  client: string;
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
  /** Cut the first line inside its chunk (a cutResponses fault). */
  cutFirst?: boolean;
}

interface OpenWatch extends WatchRequest {
  out: ServerResponse;
  deadline?: number;
  lastBookmark: number;
  held: string[];
  /** Caught by a half-open fault: never sends another byte. */
  dead: boolean;
  /** The next line is cut inside its chunk, then the connection closes. */
  cutNext: boolean;
  /** Expired while stalled: the stream ends once the held lines (the ERROR last) are out. */
  endAfterHeld: boolean;
}

// A half-open stream is out of reach: nothing sent to it (not even the end, or a reset) arrives.
const inScope = (w: OpenWatch, s: Scope): boolean =>
  !w.dead &&
  (s.client === undefined || s.client === w.client) &&
  (s.resource === undefined || s.resource === w.resource);

/** All open watch streams; fed by the store, driven by the sim clock through tick(). */
export class WatchHub {
  private readonly open = new Set<OpenWatch>();

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: Clock,
    private readonly faults: Faults,
    /** Sim milliseconds between bookmarks. */
    public bookmarkIntervalMs = BOOKMARK_INTERVAL_MS,
  ) {
    store.subscribe((c) => this.onChange(c));
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
      dead: false,
      cutNext: req.cutFirst === true,
      endAfterHeld: false,
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
        if (!w.dead) out.end();
        return;
      }
      for (const c of since) this.deliver(w, c);
    }
    this.open.add(w);
    out.on('close', () => this.open.delete(w));
  }

  /** Sends due bookmarks and ends watches past their timeout. Called after the sim clock moves. */
  tick(now: number): void {
    for (const w of [...this.open]) {
      if (w.dead || this.faults.streamState(w.client, w.resource) !== 'open') continue;
      if (w.deadline !== undefined && now >= w.deadline) {
        if (w.bookmarks) this.bookmark(w);
        this.close(w);
        continue;
      }
      if (w.bookmarks && now - w.lastBookmark >= this.bookmarkIntervalMs) this.bookmark(w);
    }
  }

  /** Re-reads the faults for every open stream: held lines flow again, half-open streams go silent. */
  refresh(): void {
    for (const w of [...this.open]) {
      if (w.dead) continue;
      const state = this.faults.streamState(w.client, w.resource);
      if (state === 'dead') {
        w.dead = true;
        w.held = [];
      } else if (state === 'open') {
        for (const line of w.held.splice(0)) this.emit(w, line);
        if (w.endAfterHeld && this.open.has(w)) this.close(w);
      }
    }
  }

  /** Ends every reachable watch cleanly (server shutdown), or only those in `scope`. */
  closeAll(scope: Scope = {}): void {
    for (const w of [...this.open]) if (inScope(w, scope)) this.close(w);
  }

  /** Cuts watch connections in `scope` between two events, without ending the chunked body. */
  dropAll(scope: Scope = {}): void {
    for (const w of [...this.open]) {
      if (!inScope(w, scope)) continue;
      this.open.delete(w);
      w.out.socket?.destroy();
      w.out.destroy();
    }
  }

  /** Arms a cut: the next line each watch in `scope` sends is cut inside its chunk. */
  cutAll(scope: Scope = {}): void {
    for (const w of this.open) if (inScope(w, scope)) w.cutNext = true;
  }

  /** Watches in `scope` get an ERROR event with a 410 Expired Status and end. */
  expireAll(scope: Scope = {}): void {
    for (const w of [...this.open]) {
      if (!inScope(w, scope)) continue;
      const e = expired(this.store.currentRv(), this.store.currentRv());
      this.send(w, 'ERROR', statusBody(e.code, e.reason, e.message) as KubeObject);
      if (w.held.length > 0) w.endAfterHeld = true;
      else if (!w.dead && this.open.has(w)) this.close(w);
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
    if (w.dead) return;
    const state = this.faults.streamState(w.client, w.resource);
    if (state === 'dead') {
      w.dead = true;
      w.held = [];
      return;
    }
    const object = w.render && type !== 'BOOKMARK' && type !== 'ERROR' ? w.render(obj) : obj;
    const line = `${JSON.stringify({ type, object })}\n`;
    if (state === 'held') w.held.push(line);
    else this.emit(w, line);
  }

  private emit(w: OpenWatch, line: string): void {
    if (!w.cutNext) {
      w.out.write(line);
      return;
    }
    // Write a chunk header for the whole line but only half its bytes, straight to the socket (after whatever
    // the response already queued on it), then close: the client reads a chunk that never completes.
    this.open.delete(w);
    const bytes = Buffer.from(line);
    const socket = w.out.socket;
    if (!socket) return void w.out.destroy();
    socket.write(`${bytes.length.toString(16)}\r\n`);
    socket.write(bytes.subarray(0, Math.max(1, bytes.length >> 1)));
    socket.destroySoon();
  }
}
