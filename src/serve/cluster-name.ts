// Several clusters may post into one channel (RWX_CLUSTER_NAME): every incident title then starts with the
// cluster's name, so the root, the thread, the resolution and /rwx status all say which cluster it is.
import type { Incident } from '../domain/incident.js';
import type { NotifierPort } from './app.js';

/** The incidents with `[name] ` before each title; the same array when no name is configured. */
export function withClusterName(incidents: Incident[], name: string | undefined): Incident[] {
  if (!name) return incidents;
  return incidents.map((i) => ({ ...i, title: `[${name}] ${i.title}` }));
}

/** A notifier that names the cluster in every incident it is given. */
export function namedNotifier(notifier: NotifierPort, name: string | undefined): NotifierPort {
  if (!name) return notifier;
  return {
    submit: (incidents, now) => notifier.submit(withClusterName(incidents, name), now),
    close: () => notifier.close(),
  };
}
