// The one loop every cluster-wide detector shares: a per-object check applied to each object.

/** Applies `check` to every object and keeps what it returns. Linear in the objects. */
export function collect<T, F>(objects: Iterable<T>, check: (o: T) => F | undefined): F[] {
  const out: F[] = [];
  for (const o of objects) {
    const f = check(o);
    if (f) out.push(f);
  }
  return out;
}
