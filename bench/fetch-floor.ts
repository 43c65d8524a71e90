// The floor of `rwx triage` against an API server, for bench/cli.ts: the least a process can do to have the same
// lists in memory. node:http only, the bearer token in a header, each list in 500-item pages (continue tokens),
// the kinds in parallel, JSON.parse of every page; nothing projected, indexed or classified.
// Usage: node fetch-floor.js SERVER TOKEN PATH[?QUERY]... (a QUERY, e.g. a fieldSelector, goes on every page);
// prints "N objects, C ms CPU" (its own CPU, user + system, every thread).
import http from 'node:http';

const [server = '', token = '', ...paths] = process.argv.slice(2);

function get(path: string): Promise<{ items?: unknown[]; metadata?: { continue?: string } }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${server}${path}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as never);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

async function list(pathAndQuery: string): Promise<number> {
  const [path, query] = pathAndQuery.split('?');
  let n = 0;
  let token: string | undefined;
  do {
    const q = new URLSearchParams(query);
    q.set('limit', '500');
    if (token) q.set('continue', token);
    const page = await get(`${path}?${q}`);
    n += page.items?.length ?? 0;
    token = page.metadata?.continue || undefined;
  } while (token);
  return n;
}

const counts = await Promise.all(paths.map(list));
const cpu = process.cpuUsage();
process.stdout.write(
  `${counts.reduce((a, b) => a + b, 0)} objects, ${Math.round((cpu.user + cpu.system) / 1000)} ms CPU\n`,
);
