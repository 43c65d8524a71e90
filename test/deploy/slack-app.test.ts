// The Slack app manifest asks for exactly the scopes the code needs: every Web API method called in src/ has a
// row in test/deploy/slack-scopes.ts, and every bot scope there is in deploy/slack-app-manifest.yaml (and no other).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FEATURE_SCOPES, requiredBotScopes, SLACK_METHOD_SCOPES } from './slack-scopes.js';
import { DEPLOY, ROOT } from './manifests.js';
import { slackManifestSchema } from './slack-manifest-schema.js';
import { slackMethodsIn, slackMethodsUnder, sourceFiles } from './slack-methods.js';

interface Manifest {
  features?: { bot_user?: unknown; slash_commands?: { command: string }[] };
  oauth_config?: { scopes?: { bot?: string[]; user?: string[] } };
  settings?: { interactivity?: { is_enabled?: boolean }; socket_mode_enabled?: boolean; event_subscriptions?: unknown };
}
const manifest = parse(readFileSync(join(DEPLOY, 'slack-app-manifest.yaml'), 'utf8')) as Manifest;

describe('slackMethodsIn', () => {
  // Each case: source text, methods expected.
  it.each([
    ["await client.apiCall('chat.postMessage', {})", ['chat.postMessage']], // apiCall with a literal
    ["call<{ ts?: string }>(client, 'usergroups.users.list', { usergroup })", ['usergroups.users.list']], // wrapper with generics
    ['await app.client.chat.update({ ts })', ['chat.update']], // WebClient property call
    ['await client?.files.completeUploadExternal(x)', ['files.completeUploadExternal']], // optional chaining
    ["// calls 'chat.delete' later\nconst x = 1;", []], // comments do not count
    ["import { x } from './files.js'; res.users.filter(f)", []], // paths and array methods are not Slack methods
  ])('%s', (src, expected) => {
    expect(slackMethodsIn(src)).toEqual(expected);
  });
});

describe('Slack scopes', () => {
  it('every Slack method named in src/ has a scope row in test/deploy/slack-scopes.ts', () => {
    const used = slackMethodsUnder(ROOT, 'src', []);
    const missing = [...used]
      .filter(([m]) => !(m in SLACK_METHOD_SCOPES))
      .map(([m, files]) => `${m} (${files.join(', ')})`);
    expect(missing).toEqual([]);
    // The scan is not vacuous: the posting path is in there.
    expect([...used.keys()]).toEqual(expect.arrayContaining(['chat.postMessage', 'chat.update']));
  });

  it('the manifest requests exactly the bot scopes of the table, and no user scopes', () => {
    expect([...(manifest.oauth_config?.scopes?.bot ?? [])].sort()).toEqual(requiredBotScopes());
    // One history scope, of the incident channel's type (public as shipped); a private channel swaps it.
    expect(requiredBotScopes('public')).toContain('channels:history');
    expect(requiredBotScopes('public')).not.toContain('groups:history');
    const swapped = requiredBotScopes('public').map((s) => (s === 'channels:history' ? 'groups:history' : s));
    expect(requiredBotScopes('private')).toEqual(swapped.sort());
    expect(manifest.oauth_config?.scopes?.user ?? []).toEqual([]);
    expect(Object.keys(FEATURE_SCOPES)).toContain('commands');
  });

  it("fits Slack's manifest schema (keys and length limits)", () => {
    const r = slackManifestSchema.safeParse(manifest);
    expect(r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
    // and the schema is not a rubber stamp
    expect(slackManifestSchema.safeParse({ ...manifest, display_information: { name: 'x'.repeat(36) } }).success).toBe(
      false,
    );
  });

  it('declares the bot user, /rwx, interactivity and Socket Mode', () => {
    expect(manifest.features?.bot_user).toBeDefined();
    expect(manifest.features?.slash_commands?.map((c) => c.command)).toEqual(['/rwx']);
    expect(manifest.settings?.interactivity?.is_enabled).toBe(true);
    expect(manifest.settings?.socket_mode_enabled).toBe(true);
  });

  it('subscribes to events only if the code listens to any', () => {
    const listens = sourceFiles(ROOT, 'src').some((f) =>
      /\bapp\.(event|message)\s*\(/.test(readFileSync(join(ROOT, f), 'utf8')),
    );
    expect(manifest.settings?.event_subscriptions !== undefined).toBe(listens);
  });
});
