// A list's next page is asked for as soon as the current page's head names its continue token, before the page
// has arrived whole and been parsed: continueFromHead (src/kube/read.ts) reads the token, KubeClusterSource tells
// it over real HTTP from the simulator, and the Reflector asks early, at most one page beyond the one it awaits,
// and drops an early ask whose token the parsed page contradicts.
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type Simulator } from '@rwx/kube-sim';
import { ManualClock } from '../../src/domain/clock.js';
import type { KindKey } from '../../src/domain/kinds.js';
import type { KubeObject } from '../../src/domain/objects.js';
import { connect, continueFromHead } from '../../src/kube/index.js';
import { pagesAhead } from '../../src/kube/pages.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import { REFLECTOR_DEFAULTS, Reflector, type ReflectorSink } from '../../src/watch/reflector.js';
import type { ClusterSource, ListOptions, ListPage, WatchHandle } from '../../src/watch/source.js';
import { ManualTimers } from '../../src/watch/timers.js';

describe('continueFromHead', () => {
  const head = '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"eyJ0b2tlbiI6MX0"}';

  it('reads the token from the metadata written before the items', () => {
    expect(continueFromHead(`${head},"items":[{"metadata":{"name":"a"`)).toBe('eyJ0b2tlbiI6MX0');
    expect(continueFromHead(` {"metadata":{"continue":"a\\"b","remainingItemCount":3},"items":[`)).toBe('a"b');
  });

  it('needs more bytes while the metadata is incomplete', () => {
    expect(continueFromHead('')).toBeUndefined();
    expect(continueFromHead(head.slice(0, 60))).toBeUndefined();
  });

  it('settles that there is none on the last page, or when the items come first', () => {
    expect(continueFromHead('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42"},"items":[')).toBe(
      null,
    );
    expect(continueFromHead('{"items":[],"metadata":{"continue":"x"}}')).toBe(null);
    expect(continueFromHead('{"kind":"PodList","items":[{"metadata":{"continue":"x"}}]')).toBe(null);
    expect(continueFromHead('{"metadata":{"continue":7},"items":[')).toBe(null);
  });
});

const pods = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'Pod',
    metadata: { name: `p-${String(i).padStart(4, '0')}`, namespace: 'ns' },
    spec: { containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Running' },
  }));

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

describe('KubeClusterSource over HTTP', () => {
  it("tells each page's continue token before the page resolves, and none on the last page", async () => {
    sim = await startSimulator({ scenario: parseScenario({ name: 'pages', objects: pods(250) }, 'inline') });
    const source = new KubeClusterSource(await connect({ kubeconfig: sim.kubeconfigPath, env: {} }));
    let token: string | undefined;
    let pages = 0;
    let names = 0;
    do {
      const told: string[] = [];
      let resolved = false;
      const p = source.list('pods', {
        limit: 100,
        ...(token ? { continueToken: token } : {}),
        onContinue: (t) => told.push(`${t} ${resolved ? 'after' : 'before'}`),
      });
      const page = await p.then((x) => ((resolved = true), x));
      pages++;
      names += page.items.length;
      expect(told).toEqual(page.continueToken ? [`${page.continueToken} before`] : []);
      token = page.continueToken;
    } while (token);
    expect({ pages, names }).toEqual({ pages: 3, names: 250 });
  });
});

/** A source whose pages are answered by the test: each ask is recorded, with a way to tell its token early. */
class ScriptedSource implements ClusterSource {
  readonly asks: { token: string | undefined; opts: ListOptions; answer: (p: ListPage) => void }[] = [];
  list(_kind: KindKey, opts: ListOptions): Promise<ListPage> {
    return new Promise((resolve) => this.asks.push({ token: opts.continueToken, opts, answer: resolve }));
  }
  watch(): WatchHandle {
    return { abort: () => undefined };
  }
}

const item = (name: string): KubeObject => ({ metadata: { name, namespace: 'ns', uid: name } });
const turn = () => new Promise((r) => setImmediate(r));

function reflector(source: ClusterSource) {
  const delivered: string[] = [];
  const sink: ReflectorSink = {
    listStart: () => undefined,
    listPage: (_k, items) => delivered.push(...items.map((o) => o.metadata?.name ?? '')),
    listEnd: () => delivered.push('end'),
    upsert: () => undefined,
    remove: () => undefined,
    failed: () => undefined,
    healthy: () => undefined,
    restarted: () => undefined,
  };
  const clock = new ManualClock(0);
  const r = new Reflector('pods', source, sink, clock, new ManualTimers(clock), REFLECTOR_DEFAULTS);
  return { r, delivered };
}

describe('Reflector', () => {
  it('asks for the next page when the head names it, at most one page beyond the one awaited', async () => {
    const source = new ScriptedSource();
    const { r, delivered } = reflector(source);
    r.start();
    await turn();
    expect(source.asks.map((a) => a.token)).toEqual([undefined]);
    source.asks[0]?.opts.onContinue?.('t2');
    expect(source.asks.map((a) => a.token)).toEqual([undefined, 't2']);
    // Page 2's head arrives before page 1 is answered: page 3 waits until page 2 is the one awaited.
    source.asks[1]?.opts.onContinue?.('t3');
    expect(source.asks).toHaveLength(2);
    source.asks[0]?.answer({ items: [item('a')], resourceVersion: '9', continueToken: 't2' });
    await turn();
    expect(source.asks.map((a) => a.token)).toEqual([undefined, 't2', 't3']);
    source.asks[1]?.answer({ items: [item('b')], resourceVersion: '9', continueToken: 't3' });
    await turn();
    source.asks[2]?.answer({ items: [item('c')], resourceVersion: '9' });
    await turn();
    expect(delivered).toEqual(['a', 'b', 'c', 'end']);
    expect(source.asks).toHaveLength(3);
    r.stop();
  });

  it('drops an early ask the parsed page contradicts, and asks with the page’s own token', async () => {
    const source = new ScriptedSource();
    const { r, delivered } = reflector(source);
    r.start();
    await turn();
    source.asks[0]?.opts.onContinue?.('wrong');
    source.asks[0]?.answer({ items: [item('a')], resourceVersion: '9', continueToken: 'right' });
    await turn();
    expect(source.asks.map((a) => a.token)).toEqual([undefined, 'wrong', 'right']);
    source.asks[1]?.answer({ items: [item('x')], resourceVersion: '9' });
    source.asks[2]?.answer({ items: [item('b')], resourceVersion: '9' });
    await turn();
    expect(delivered).toEqual(['a', 'b', 'end']);
    r.stop();
  });

  it('without an early token asks for the next page once the page is parsed, as before', async () => {
    const source = new ScriptedSource();
    const { r, delivered } = reflector(source);
    r.start();
    await turn();
    source.asks[0]?.answer({ items: [item('a')], resourceVersion: '9', continueToken: 't2' });
    await turn();
    expect(source.asks.map((a) => a.token)).toEqual([undefined, 't2']);
    source.asks[1]?.answer({ items: [item('b')], resourceVersion: '9' });
    await turn();
    expect(delivered).toEqual(['a', 'b', 'end']);
    r.stop();
  });
});

describe('pagesAhead', () => {
  it('a consumer that stops leaves the page it would await and one beyond it asked for, failures handled', async () => {
    const asked: (string | undefined)[] = [];
    const pages = pagesAhead<{ n: number; next?: string }>(
      (token, early) => {
        asked.push(token);
        const n = token ? Number(token) : 1;
        early(String(n + 1)); // every head names its successor at once
        return n === 3 ? Promise.reject(new Error('never read')) : Promise.resolve({ n, next: String(n + 1) });
      },
      (p) => p.next,
    );
    const seen: number[] = [];
    for await (const p of pages) {
      seen.push(p.n);
      if (p.n === 2) break;
    }
    expect(seen).toEqual([1, 2]);
    // Page 3 (the next to await, which fails) and page 4 (named early by 3's head) were asked for; nothing more.
    expect(asked).toEqual([undefined, '2', '3', '4']);
  });
});
