import { describe, expect, it } from 'vitest';
import { decodeSlackEntities, shorten, untrusted } from '../../src/commands/escape.js';
import { cutLines } from '../../src/commands/message.js';
import { responseUrlAllowed } from '../../src/commands/response-url.js';

describe('responseUrlAllowed', () => {
  it.each([
    ['https://hooks.slack.com/commands/T0/1/abc', [], true], // Slack's response_url host
    ['https://hooks.slack-gov.com/commands/T0/1/abc', [], false], // other hosts need configuring
    ['http://hooks.slack.com/commands/x', [], false], // plain http refused
    ['https://hooks.slack.com.evil.example/x', [], false], // suffix trick
    ['https://evil.example/?u=https://hooks.slack.com/', [], false], // Slack URL in the query
    ['http://127.0.0.1:4000/response/r1', ['http://127.0.0.1:4000'], true], // a configured fake origin
    ['http://127.0.0.1:4001/response/r1', ['http://127.0.0.1:4000'], false], // another port is another origin
    ['not a url', [], false], // garbage
  ])('%s with %j -> %s', (url, extra, ok) => expect(responseUrlAllowed(url, extra)).toBe(ok));
});

describe('escaping and cutting', () => {
  it.each([
    ['&lt;!channel&gt; &amp; co', '<!channel> & co'], // the three entities
    ['&amp;lt;', '&lt;'], // decoded once, not twice
  ])('decodeSlackEntities(%j)', (s, want) => expect(decodeSlackEntities(s)).toBe(want));

  it.each([
    ['short', 10, 'short'], // untouched
    ['abcdefghijk', 5, 'abcd…'], // cut with an ellipsis
    ['😀😀😀😀😀😀', 3, '😀😀…'], // code points, never half an emoji
  ])('shorten(%j, %d)', (s, n, want) => expect(shorten(s, n)).toBe(want));

  it('untrusted shortens before escaping, so no entity is cut', () => {
    expect(untrusted('<<<<<<', 3)).toBe('&lt;&lt;…');
  });

  it('cutLines keeps whole lines and never leaves half an entity', () => {
    expect(cutLines('aaaa\nbbbb\ncccc', 11)).toBe('aaaa\nbbbb\n…');
    expect(cutLines(`${'x'.repeat(20)}&amp;`, 23)).toBe(`${'x'.repeat(20)}\n…`);
  });
});
