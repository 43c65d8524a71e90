// A fake Slack Socket Mode server (ws, random port). Point FakeSlack.socketModeUrl at `url`; Bolt's
// SocketModeReceiver gets it from apps.connections.open, connects, receives `hello`, and then the envelopes a
// test sends with `send()`, which resolves with the client's ack ({envelope_id, payload?}). Several bots may be
// connected at once (one Slack app, several processes): like Slack, each envelope goes to one of them, chosen at
// random unless the test names one, and the server records which connection it went to and which acked it.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { until } from './until.js';

/** The ack a Socket Mode client sends back for an envelope. */
export interface SocketAck {
  envelope_id: string;
  payload?: unknown;
}

/** One client connection, numbered from 1 in the order they connected. */
export interface SocketConnection {
  id: number;
  open: boolean;
  /** Envelopes this connection acked. */
  acks: number;
}

/** One envelope sent: to which connection, and who acked it (undefined while unacked). */
export interface Delivery {
  envelope_id: string;
  type: string;
  to: number;
  ackedBy?: number;
}

/** How to send one envelope. */
export interface SendOptions {
  /** Give up (reject) when no ack arrives within this many ms (default 5000; Slack's own limit is 3 s). */
  timeoutMs?: number;
  /** Deliver to this connection id instead of a random open one. */
  to?: number;
}

/** The fake Socket Mode server. */
export class FakeSocketMode {
  readonly connections: SocketConnection[] = [];
  readonly deliveries: Delivery[] = [];
  /** Every message received from clients (acks, anything else). */
  readonly received: unknown[] = [];
  /** Resolves when a first client has connected and been sent `hello`. */
  readonly connected: Promise<void>;
  private readonly sockets = new Map<number, WebSocket>();
  private readonly waiting = new Map<string, (ack: SocketAck, from: number) => void>();
  private connectedResolve!: () => void;

  constructor(
    private readonly wss: WebSocketServer,
    /** Picks among open connections: a number in [0, 1), like Math.random (a test may seed its own). */
    private readonly random: () => number = Math.random,
  ) {
    this.connected = new Promise((resolve) => {
      this.connectedResolve = resolve;
    });
    wss.on('connection', (ws) => this.accept(ws));
  }

  /** ws://127.0.0.1:PORT/ */
  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/`;
  }

  /** Open connections, by id. */
  openIds(): number[] {
    return this.connections.filter((c) => c.open).map((c) => c.id);
  }

  /** Resolves once `n` connections are open at the same time; rejects after `timeoutMs`. */
  async waitForConnections(n: number, timeoutMs = 5000): Promise<void> {
    await until(() => this.openIds().length >= n, `${n} Socket Mode clients connected`, timeoutMs);
  }

  /**
   * Sends an envelope of `type` ('interactive', 'slash_commands', 'events_api') to one open connection (random
   * unless `to`), and resolves with its ack and the connection that acked it.
   */
  send(type: string, payload: unknown, opts: number | SendOptions = {}): Promise<SocketAck & { connection: number }> {
    const o = typeof opts === 'number' ? { timeoutMs: opts } : opts;
    const open = this.openIds();
    const to = o.to ?? open[Math.min(open.length - 1, Math.floor(this.random() * open.length))];
    const socket = to === undefined ? undefined : this.sockets.get(to);
    if (to === undefined || !socket || !open.includes(to))
      return Promise.reject(new Error('no Socket Mode client connected'));
    const envelope_id = randomUUID();
    const delivery: Delivery = { envelope_id, type, to };
    this.deliveries.push(delivery);
    const timeoutMs = o.timeoutMs ?? 5000;
    const acked = new Promise<SocketAck & { connection: number }>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(envelope_id);
        reject(new Error(`no ack for ${type} envelope within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(envelope_id, (ack, from) => {
        clearTimeout(timer);
        this.waiting.delete(envelope_id);
        delivery.ackedBy = from;
        resolve({ ...ack, connection: from });
      });
    });
    const accepts_response_payload = type !== 'events_api';
    socket.send(
      JSON.stringify({ envelope_id, type, payload, accepts_response_payload, retry_attempt: 0, retry_reason: '' }),
    );
    return acked;
  }

  /** Cuts one connection without a close handshake (the bot's network went away). */
  drop(id: number): void {
    this.sockets.get(id)?.terminate();
  }

  /** Closes client connections and the server. */
  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    const conn: SocketConnection = { id: this.connections.length + 1, open: true, acks: 0 };
    this.connections.push(conn);
    this.sockets.set(conn.id, ws);
    ws.on('close', () => {
      conn.open = false;
      this.sockets.delete(conn.id);
    });
    ws.on('message', (data) => {
      let msg: unknown;
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      this.received.push(msg);
      const id = (msg as { envelope_id?: string }).envelope_id;
      const waiter = id ? this.waiting.get(id) : undefined;
      if (!waiter) return;
      conn.acks++;
      waiter(msg as SocketAck, conn.id);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.openIds().length,
        debug_info: { host: 'fake', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A0FAKE' },
      }),
    );
    this.connectedResolve();
  }
}

/** Starts a fake Socket Mode server on 127.0.0.1 with a random port; `random` picks who gets each envelope. */
export async function startFakeSocketMode(opts: { random?: () => number } = {}): Promise<FakeSocketMode> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  return new FakeSocketMode(wss, opts.random);
}

/** A seeded generator in [0, 1) (mulberry32), so the fake's choice of bot is repeatable. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
