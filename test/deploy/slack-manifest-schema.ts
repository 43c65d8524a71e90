// The part of Slack's app manifest schema (v1, slackapi/manifest-schema) that our manifest uses, as zod, with
// Slack's own length limits: an admin's paste must not be rejected by Slack for a too-long field or a typo'd key.
import { z } from 'zod';

const url = z
  .string()
  .regex(/^https?:\/\//)
  .max(3000);

/** Slack app manifest v1, restricted to the sections rwx uses; unknown keys are errors (strict objects). */
export const slackManifestSchema = z.strictObject({
  _metadata: z.strictObject({ major_version: z.literal(1), minor_version: z.number().int() }),
  display_information: z.strictObject({
    name: z.string().min(1).max(35),
    description: z.string().min(1).max(140),
    background_color: z.string().regex(/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/),
    long_description: z.string().min(175).max(4000),
  }),
  features: z.strictObject({
    bot_user: z.strictObject({ display_name: z.string().min(1).max(80), always_online: z.boolean() }),
    slash_commands: z
      .array(
        z.strictObject({
          command: z.string().min(2).max(32).regex(/^\//),
          url: url.optional(),
          description: z.string().min(1).max(2000),
          usage_hint: z.string().min(1).max(1000),
          should_escape: z.boolean(),
        }),
      )
      .min(1)
      .max(50),
  }),
  oauth_config: z.strictObject({
    scopes: z.strictObject({ bot: z.array(z.string().max(50)).max(255), user: z.array(z.string()).optional() }),
  }),
  settings: z.strictObject({
    interactivity: z.strictObject({ is_enabled: z.boolean(), request_url: url.optional() }),
    org_deploy_enabled: z.boolean(),
    socket_mode_enabled: z.boolean(),
    token_rotation_enabled: z.boolean(),
    event_subscriptions: z
      .strictObject({ request_url: url.optional(), bot_events: z.array(z.string()).optional() })
      .optional(),
  }),
});
