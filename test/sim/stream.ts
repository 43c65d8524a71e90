// Test helper: a raw watch stream over node:http, collecting events line by line and every byte received.
/* eslint-disable @typescript-eslint/no-explicit-any -- watch events here are untyped JSON, read field by field */
import http from 'node:http';
import type { Simulator } from '@rwx/kube-sim';
import { until } from '../support/until.js';

/** An open watch as the client sees it. */
export interface Stream {
  events: { type: string; object: any }[];
  /** Bytes of body received (whole lines and any partial one). */
  bytes: number;
  /** Body text received after the last complete line. */
  partial: string;
  status?: number;
  ended: boolean;
  error?: Error;
  close(): void;
}

/** Opens a watch (`path` with its query) with `token` (default: the kubeconfig's), once the simulator has it. */
export async function watch(sim: Simulator, path: string, token = sim.token): Promise<Stream> {
  const s: Stream = { events: [], bytes: 0, partial: '', ended: false, close: () => {} };
  const before = sim.audit.length;
  const req = http.get(`${sim.url}${path}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
    s.status = res.statusCode;
    res.on('data', (d: Buffer) => {
      s.bytes += d.length;
      s.partial += String(d);
      for (let i = s.partial.indexOf('\n'); i >= 0; i = s.partial.indexOf('\n')) {
        s.events.push(JSON.parse(s.partial.slice(0, i)));
        s.partial = s.partial.slice(i + 1);
      }
    });
    res.on('end', () => {
      s.ended = true;
    });
    res.on('error', (e) => {
      s.error = e;
    });
  });
  req.on('error', (e) => {
    s.error = e;
  });
  s.close = () => req.destroy();
  await until(() => sim.audit.length > before, 'the watch request');
  return s;
}

/** "TYPE name" per event (the Status code for ERROR events). */
export const summary = (s: Stream) =>
  s.events.map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.code ?? ''}`.trim());

/** Lets pending socket I/O happen (a few event-loop turns), for asserting that nothing arrived. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
}
