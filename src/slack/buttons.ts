// The incident root's buttons: Acknowledge, Mute 1h / 4h, Resolve (and the optional Runbook / Dashboard links). Each acks Slack within its 3 s, records the
// action through IncidentActions (which updates the root), and answers the clicker ephemerally when the click
// changed nothing (already acknowledged, already resolved) or could not be done.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { performance } from 'node:perf_hooks';
import { toRwxError } from '../errors.js';
import type { ActionResult, IncidentActions } from '../domain/actions.js';
import type { Clock } from '../domain/clock.js';
import { ACTION_IDS } from '../render/slack-blocks.js';
import { type Audit, elapsed } from './audit.js';

/** What command and action handlers get from the app factory (app.ts). */
export interface SlackAppDeps {
  actions: IncidentActions;
  clock: Clock;
  /** Who may press buttons / run commands; default everyone. A refusal is answered politely, ephemerally. */
  authorize: (user: string, channel: string | undefined) => Promise<boolean>;
  /** One line per click (who, channel, button, incident, result, latency); default none. */
  audit?: Audit;
}

const HOUR = 3_600_000;

/** Registers the button handlers on `app`. */
export function registerIncidentButtons(app: App, deps: SlackAppDeps): void {
  const on = (actionId: string, run: (key: string, user: string, now: number) => Promise<ActionResult>): void => {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, respond }) => {
      const start = performance.now();
      await ack();
      const user = body.user.id;
      const channel = body.channel?.id ?? body.container?.channel_id;
      const key = action.value ?? '';
      const audit = (result: string): void =>
        deps.audit?.({
          audit: 'action',
          who: user,
          ...(channel ? { channel } : {}),
          action: actionId,
          ...(key ? { incident: key } : {}),
          result,
          latency_ms: elapsed(start),
        });
      const reply = (text: string): Promise<unknown> =>
        respond({ response_type: 'ephemeral', replace_original: false, text });
      if (!(await deps.authorize(user, channel))) {
        audit('refused');
        await reply('Sorry, you are not allowed to change incidents here. Ask the on-call team to add you.');
        return;
      }
      try {
        const res = await run(key, user, deps.clock.now());
        audit(res.status);
        if (res.status !== 'done') await reply(res.message);
      } catch (e) {
        const err = toRwxError(e);
        audit(err.code);
        await reply(`Could not do that: ${err.message}`);
      }
    });
  };
  on(ACTION_IDS.ack, (key, user, now) => deps.actions.acknowledge(key, user, now));
  on(ACTION_IDS.mute1h, (key, user, now) => deps.actions.mute(key, user, HOUR, now));
  on(ACTION_IDS.mute4h, (key, user, now) => deps.actions.mute(key, user, 4 * HOUR, now));
  on(ACTION_IDS.resolve, (key, user, now) => deps.actions.resolve(key, user, now));
  // A link button opens its URL in the clicker's browser; Slack still sends the click, which must be acknowledged
  // (else the clicker sees a warning), and there is nothing else to do.
  for (const id of [ACTION_IDS.runbook, ACTION_IDS.dashboard]) app.action(id, async ({ ack }) => ack());
}
