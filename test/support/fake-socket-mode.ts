// A fake Slack Socket Mode server (ws, random port). Point FakeSlack.socketModeUrl at `url`; Bolt's
// SocketModeReceiver gets it from apps.connections.open, connects, receives `hello`, and then the envelopes a
// test sends with `send()`, which resolves with the client's ack ({envelope_id, payload?}).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** The ack a Socket Mode client sends back for an envelope. */
export interface SocketAck {
  envelope_id: string;
  payload?: unknown;
}

/** The fake Socket Mode server. */
export class FakeSocketMode {
  private socket: WebSocket | undefined;
  private readonly waiting = new Map<string, (ack: SocketAck) => void>();
  private connectedResolve!: () => void;
  /** Resolves when a client has connected and been sent `hello`. */
  readonly connected: Promise<void>;
  /** Every message received from clients (acks, anything else). */
  readonly received: unknown[] = [];

  constructor(private readonly wss: WebSocketServer) {
    this.connected = new Promise((resolve) => {
      this.connectedResolve = resolve;
    });
    wss.on('connection', (ws) => {
      this.socket = ws;
      ws.on('message', (data) => {
        let msg: unknown;
        try {
          msg = JSON.parse(String(data));
        } catch {
          return;
        }
        this.received.push(msg);
        const id = (msg as { envelope_id?: string }).envelope_id;
        if (id) this.waiting.get(id)?.(msg as SocketAck);
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: 1,
          debug_info: { host: 'fake', approximate_connection_time: 3600 },
          connection_info: { app_id: 'A0FAKE' },
        }),
      );
      this.connectedResolve();
    });
  }

  /** ws://127.0.0.1:PORT/ */
  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/`;
  }

  /** Sends an envelope of `type` ('interactive', 'slash_commands', 'events_api') and resolves with its ack. */
  send(type: string, payload: unknown, timeoutMs = 5000): Promise<SocketAck> {
    if (!this.socket) return Promise.reject(new Error('no Socket Mode client connected'));
    const envelope_id = randomUUID();
    const acked = new Promise<SocketAck>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ack for ${type} envelope within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiting.set(envelope_id, (ack) => {
        clearTimeout(timer);
        resolve(ack);
      });
    });
    this.socket.send(
      JSON.stringify({
        envelope_id,
        type,
        payload,
        accepts_response_payload: type !== 'events_api',
        retry_attempt: 0,
        retry_reason: '',
      }),
    );
    return acked;
  }

  /** Closes client connections and the server. */
  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

/** Starts a fake Socket Mode server on 127.0.0.1 with a random port. */
export async function startFakeSocketMode(): Promise<FakeSocketMode> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  return new FakeSocketMode(wss);
}
