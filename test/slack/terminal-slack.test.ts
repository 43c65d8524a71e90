import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { renderEvidenceReply } from '../../src/render/slack-thread.js';
import { incidentMetadata, replyMetadata } from '../../src/slack/api.js';
import { TerminalSlack } from '../../src/slack/terminal-slack.js';
import { rolloutIncident } from '../render/incident-fixtures.js';

describe('TerminalSlack', () => {
  it('prints the root, its edits and the replies as readable text, and finds the root like Slack', async () => {
    const out = new PassThrough();
    let printed = '';
    out.on('data', (c: Buffer) => (printed += c.toString()));
    const slack = new TerminalSlack({ out, color: false });
    const inc = rolloutIncident();
    const { ts } = await slack.postMessage({
      channel: 'C1',
      ...renderIncidentRoot(inc),
      metadata: incidentMetadata(inc.key),
    });
    const reply = await slack.postMessage({
      channel: 'C1',
      threadTs: ts,
      ...renderEvidenceReply(inc),
      metadata: replyMetadata(inc.key, 'evidence'),
    });
    await slack.update({ channel: 'C1', ts, ...renderIncidentRoot(inc, { ack: { user: 'U1', at: 0 } }) });
    expect(printed).toContain(`new root message ${ts} in C1`);
    expect(printed).toContain('Do not drain.');
    expect(printed).toContain('• node-19: platform/postgres-2'); // one line per node, markup dropped
    expect(printed).toContain('    ── reply in thread');
    expect(printed).toContain('mountPropagation Bidirectional -> none'); // unescaped for the terminal
    expect(printed).toContain(`root ${ts} edited`);
    // An edit of a reply (the second evidence reply) is printed in its thread, not as the root's.
    await slack.update({ channel: 'C1', ts: reply.ts, ...renderEvidenceReply(inc) });
    expect(printed).toContain(`    ── reply ${reply.ts} in thread ${ts} edited`);
    expect(printed).not.toContain(`root ${reply.ts} edited`);
    expect(printed).toContain('[ Acknowledged ] [ Mute 1h ] [ Mute 4h ] [ Resolve ]');
    expect(printed).not.toContain('\u001b[');
    // Slack's markup reads as text: a date as its UTC fallback, a user group by its id, a link as text (URL).
    expect(printed).toContain('Acknowledged by <@U1> at 1970-01-01 00:00 UTC');
    expect(printed).not.toContain('<!date^');
    expect(await slack.findRootByIncidentKey('C1', inc.key)).toBe(ts);
    expect(await slack.findThreadReply('C1', ts, inc.key, 'evidence')).toBe(reply.ts);
  });

  it('prints a mention and link buttons readably', async () => {
    const out = new PassThrough();
    let printed = '';
    out.on('data', (c: Buffer) => (printed += c.toString()));
    const slack = new TerminalSlack({ out, color: false });
    const links = { runbook: 'https://wiki.example.com/csi' };
    await slack.postMessage({
      channel: 'C1',
      ...renderIncidentRoot(rolloutIncident(), {}, { links, mention: 'S0ON' }),
    });
    expect(printed).toContain('@S0ON');
    expect(printed).toContain('[ Resolve ] [ Runbook ]');
  });
});
