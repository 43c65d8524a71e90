import { describe, expect, it } from 'vitest';
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
