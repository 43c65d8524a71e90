// A SlackApi that posts its own way and passes every other call through: the one shape of the decorators that
// change only chat.postMessage (the fleet's per-channel limiter, the reply look-up after Redis came back).
import type { SlackApi } from './api.js';

/** `slack` with `postMessage` in place of its own; every other method is `slack`'s. */
export function withPost(slack: SlackApi, postMessage: SlackApi['postMessage']): SlackApi {
  return {
    postMessage,
    update: (args) => slack.update(args),
    postEphemeral: (args) => slack.postEphemeral(args),
    findRootByIncidentKey: (c, k, s) => slack.findRootByIncidentKey(c, k, s),
    findThreadReply: (c, t, k, r) => slack.findThreadReply(c, t, k, r),
    permalink: (c, ts) => slack.permalink(c, ts),
    uploadFile: (args) => slack.uploadFile(args),
  };
}
