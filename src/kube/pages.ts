// The pages of one paginated list, each next page asked for early. One rule for rwx serve's reflectors and the
// read commands' readCluster.
//
// A page's continue token is in its metadata, which the API server writes before the items (continueFromHead in
// read.ts reads it from the first bytes of the answer). So the next page can be asked for while this one is
// still arriving and being parsed: the server prepares it meanwhile, and a large kind costs about its fetching and
// parsing, not that plus a round trip and the server's work per page. A source that cannot tell the token early
// gets the next page asked for once its page is in, before the consumer works on it.
//
// A page asked for early can wait, parsed, until the consumer is done with the one before: reduce it in `ask` (the
// callers project its objects there), not in the consumer. A raw page that waits survives young-generation
// collections and is copied into the old generation, where it dies: at 150k pods that was half of a restart's
// garbage collection and a third of its CPU.

/** Asks for one page: `token` is the previous page's continue token; `early` may be called with this page's own. */
export type AskPage<P> = (token: string | undefined, early: (token: string) => void) => Promise<P>;

/** One page asked for: its token, the continue token its head named early, and the page asked for after it. */
interface Asked<P> {
  token: string | undefined;
  page: Promise<P>;
  early?: string;
  next?: Asked<P>;
}

/**
 * The pages of one list, in order, until one has no continue token (`tokenOf`). At most one page is asked for
 * beyond the one awaited, so a slow consumer does not pull the whole list into memory. A page asked for early with
 * another token than the one its predecessor turned out to carry (a server whose head lied) is dropped and asked
 * for again. `wait` wraps each awaited page (a timeout). While the consumer works on a page, the next one and at
 * most one beyond it are asked for; a consumer that stops leaves those two unread (their failures handled).
 */
export async function* pagesAhead<P>(
  ask: AskPage<P>,
  tokenOf: (page: P) => string | undefined,
  wait: (page: Promise<P>) => Promise<P> = (p) => p,
): AsyncGenerator<P> {
  let at: Asked<P> | undefined;
  const start = (token: string | undefined): Asked<P> => {
    const asked = { token } as Asked<P>; // page is set next; a source may tell its token before it returns
    asked.page = ask(token, (early) => {
      asked.early = early;
      if (at === asked) asked.next ??= start(early);
    });
    asked.page.catch(() => undefined);
    return asked;
  };
  at = start(undefined);
  for (;;) {
    const page = await wait(at.page);
    const token = tokenOf(page);
    if (token) {
      at = at.next?.token === token ? at.next : start(token);
      if (at.early !== undefined) at.next ??= start(at.early);
    }
    yield page;
    if (!token) return;
  }
}
