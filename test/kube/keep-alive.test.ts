// connect()'s requests reuse one keep-alive connection (client-node makes a new agent, hence a new TCP connection
// and TLS handshake, for every request: 300 of them to list 150k pods). Counted by a TCP relay in front of the
// simulator, over HTTPS with the kubeconfig's CA and over plain HTTP.
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/kube/connect.js';
import { scenarioPath, testSim } from '../support/sim.js';

const relays: { server: net.Server; sockets: Set<net.Socket> }[] = [];
afterEach(async () => {
  for (const r of relays) for (const s of r.sockets) s.destroy();
  await Promise.all(relays.splice(0).map((r) => new Promise((done) => r.server.close(done))));
});

/** A TCP relay to `port` that counts the connections made to it. */
async function relay(port: number): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    n++;
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  relays.push({ server, sockets });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, connections: () => n };
}

describe('connect: one keep-alive connection', () => {
  it.each([
    // TLS: the handshake is the cost a connection per request adds
    { tls: true },
    // plain http (the simulator's default, insecure-skip-tls-verify)
    { tls: false },
  ])('reuses one connection for successive requests (tls: $tls)', async ({ tls }) => {
    const { sim } = await testSim(scenarioPath('propagation-loss'), { tls });
    const via = await relay(Number(new URL(sim.url).port));
    const kubeconfig = `${sim.kubeconfigPath}.relay`;
    const text = readFileSync(sim.kubeconfigPath, 'utf8').replace(sim.url, sim.url.replace(/:\d+$/, `:${via.port}`));
    writeFileSync(kubeconfig, text);
    const conn = await connect({ kubeconfig, env: {} });
    for (let i = 0; i < 5; i++) expect((await conn.request('GET', '/api/v1/nodes?limit=1')).status).toBe(200);
    expect(via.connections()).toBe(1);
  });
});
