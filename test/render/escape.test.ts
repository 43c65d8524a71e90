// The one module for Slack text: escaping, decoding command text, and cutting to Block Kit's limits. Raw text is
// cut before it is escaped; escaped text is cut without ever leaving half an entity.
import { describe, expect, it } from 'vitest';
import {
  cutEscaped,
  decodeSlackEntities,
  escapeSlack,
  fitEscaped,
  shorten,
  untrusted,
} from '../../src/render/escape.js';
import { context, fallbackText, header, section } from '../../src/render/slack-blocks.js';

/** Whether an escaped text ends in the middle of an entity ("&l", "&am"). */
const halfEntity = (s: string): boolean => /&[a-z]{0,3}$/.test(s.replace(/…$/, '').replace(/\n$/, ''));

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

  it.each([
    ['fits', 'a<b', 10, 'a&lt;b'], // escaped length 6: whole
    // "<<<<<<" escapes to 24 characters; cut on the raw text so the output holds whole entities only
    ['entities', '<<<<<<', 10, '&lt;&lt;…'],
    ['just under an entity', 'ab<cd', 6, 'ab…'], // "ab&lt;" + "…" would be 7
    ['emoji', '😀😀😀😀', 5, '😀😀…'], // two surrogate pairs and the ellipsis
  ])('fitEscaped: %s', (_name, raw, max, want) => {
    const got = fitEscaped(raw, max);
    expect(got).toBe(want);
    expect(got.length).toBeLessThanOrEqual(max);
  });

  it.each([
    ['lines', 'aaaa\nbbbb\ncccc', 11, 'aaaa\nbbbb\n…'], // whole lines kept
    ['entity at the cut', `${'x'.repeat(20)}&amp;`, 23, `${'x'.repeat(20)}\n…`], // "&am" is dropped, not kept
    ['emoji at the cut', `${'x'.repeat(9)}😀yy`, 12, `${'x'.repeat(9)}\n…`], // never half a surrogate pair
  ])('cutEscaped: %s', (_name, text, max, want) => {
    const got = cutEscaped(text, max);
    expect(got).toBe(want);
    expect(got.length).toBeLessThanOrEqual(max);
  });
});

// Every builder that takes raw text cuts before escaping, so `&lt;` is never cut at any length; every builder that
// takes escaped text never ends in half an entity.
describe('blocks at their limits', () => {
  const raw = '<'.repeat(400);
  it.each([140, 149, 150, 151, 152, 153])('a header of %d raw characters holds whole entities', (n) => {
    const text = header('x'.repeat(n - 3) + raw).text.text;
    expect(text.length).toBeLessThanOrEqual(150);
    expect(halfEntity(text)).toBe(false);
  });

  it.each([2997, 2998, 2999, 3000, 3001])('a section cut near %d characters holds whole entities', (n) => {
    const text = section('x'.repeat(n) + escapeSlack(raw)).text.text;
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(halfEntity(text)).toBe(false);
    expect(halfEntity((context('y'.repeat(n) + escapeSlack(raw)).elements[0]?.text ?? '').trim())).toBe(false);
  });

  it('the fallback text is cut on the raw text, then escaped', () => {
    const text = fallbackText('x'.repeat(2998) + raw);
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(halfEntity(text)).toBe(false);
  });
});
