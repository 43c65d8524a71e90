// A free TCP port on 127.0.0.1, for a server a test starts by port number (a child process, a redis-server).
import { createServer } from 'node:net';

/** A port nothing listened on a moment ago (the OS picked it); the caller binds it next. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
