// The operations behind the incident root's buttons: the Slack app calls them, the notifier implements them.

/** Outcome of a button: done, already in that state, or no such open incident. `message` is Slack mrkdwn. */
export interface ActionResult {
  status: 'done' | 'already' | 'unknown';
  message: string;
}

/** The button operations on an incident; `user` is the Slack user id who clicked. */
export interface IncidentActions {
  acknowledge(key: string, user: string, now: number): Promise<ActionResult>;
  mute(key: string, user: string, durationMs: number, now: number): Promise<ActionResult>;
  resolve(key: string, user: string, now: number): Promise<ActionResult>;
}
