// A slash command routed across the fleet, for `rwx demo --fleet`. With one Slack app, Slack hands `/rwx` to
// whichever bot is connected; the demo hands it to one cluster's bot, through the same listener Bolt would call
// (parse, access, the acknowledgement within 3 s, then the command on the queue in Redis of the cluster it names),
// and the owning cluster's worker answers on the response_url: printed here, by the same renderer as the channel.
import type { App } from '@slack/bolt';
import type { ResponseSender } from '../commands/index.js';
import type { TerminalSlack } from '../slack/terminal-slack.js';

/** The user the demo types commands as. */
const USER = 'U0DEMO';

type Answer = Parameters<TerminalSlack['answer']>[1];

// What the `/rwx` listener is called with (the part of Bolt's slash command arguments it reads).
interface CommandCall {
  command: { text: string; user_id: string; channel_id: string; channel_name: string; response_url: string };
  ack(answer?: Answer): Promise<void>;
  respond(answer: Answer): Promise<void>;
}

/** The part of a Bolt app `/rwx` is registered on: it keeps the listener, for the demo to call. */
export class DemoCommandApp {
  private listener: ((call: CommandCall) => Promise<void>) | undefined;

  /** As App.command: keeps the listener (one command, `/rwx`). */
  command(_name: string, listener: (call: CommandCall) => Promise<void>): void {
    this.listener = listener;
  }

  /** This app as runServe's `commands.app`: registerCommands only calls `command`. */
  asApp(): App {
    return this as unknown as App;
  }

  /** Delivers `/rwx text` typed in `channel`, as Slack would deliver it to this bot. */
  async deliver(text: string, channel: string, slack: TerminalSlack): Promise<void> {
    if (!this.listener) throw new Error('no /rwx listener registered');
    const show = async (a?: Answer): Promise<void> => void (a && slack.answer(USER, a));
    await this.listener({
      command: { text, user_id: USER, channel_id: channel, channel_name: 'incidents', response_url: 'demo:' },
      ack: show,
      respond: show,
    });
  }
}

/** Where the worker's answers go in the demo: printed, and told to `answered`. */
export function demoAnswers(slack: TerminalSlack, answered: (text: string) => void): ResponseSender {
  return {
    send: async (_url, body) => {
      slack.answer(USER, body);
      answered(body.text);
    },
  };
}
