// /rwx over Bolt's HTTP receiver: signature and timestamp checks, ack before the work, the answer on the
// response_url, authorisation refusals, and a long triage uploaded as a file.
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandServices } from '../../src/commands/index.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { systemClock } from '../../src/domain/clock.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { RwxError } from '../../src/errors.js';
import { startHarness, type Harness } from './harness.js';
import { claim, report } from './fixtures.js';
import { commandFields } from './harness.js';

/** A promise the test resolves by hand: holds the worker mid-job. */
function gate<T>(): { promise: Promise<T>; open(v: T): void; entered: Promise<void>; enter(): void } {
  let open!: (v: T) => void;
  let enter!: () => void;
  const promise = new Promise<T>((r) => (open = r));
  const entered = new Promise<void>((r) => (enter = r));
  return { promise, open, entered, enter };
}

function services(over: Partial<CommandServices> = {}): CommandServices {
  const index = ClusterIndex.fromSnapshot(emptySnapshot());
  return {
    clock: systemClock,
    cluster: { index: () => index },
    triage: () => report([claim('platform', 'data-postgres-2', 'MOUNT_FAILED'), claim('search', 'index', 'OK')]),
    evaluate: () => ({
      incidents: [],
      drain: (node) => {
        throw new RwxError('NOT_FOUND', `node ${node} not found`);
      },
    }),
    openIncidents: async () => [],
    ...over,
  };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('signed HTTP requests at /slack/events', () => {
  it('acknowledges a valid request before the work completes, then answers on the response_url', async () => {
    const g = gate<[]>();
    h = await startHarness(
      services({
        openIncidents: () => {
          g.enter();
          return g.promise;
        },
      }),
      { allowedChannels: ['C0INC'], allowedUsergroups: [] },
    );
    const ack = await h.command({ text: 'status', response_url: h.fake.responseUrl('status-1') });
    expect(ack.status).toBe(200);
    expect(JSON.parse(ack.body)).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('Working on the open incidents'),
    });
    await g.entered; // the worker has the job...
    expect(h.fake.responses.get('status-1')).toBeUndefined(); // ...and has not answered: the ack came first
    g.open([]);
    await h.sent.until(1);
    expect(h.fake.responses.get('status-1')).toEqual([
      expect.objectContaining({
        response_type: 'ephemeral',
        text: expect.stringContaining('No open storage incidents'),
      }),
    ]);
  });

  it('rejects a bad signature with 401 and runs nothing', async () => {
    let ran = false;
    h = await startHarness(
      services({
        openIncidents: async () => {
          ran = true;
          return [];
        },
      }),
      { allowedChannels: ['*'], allowedUsergroups: [] },
    );
    const res = await h.command({ text: 'status' }, { secret: 'not-the-secret' });
    expect(res.status).toBe(401);
    const garbage = await h.command({ text: 'status' }, { signature: 'v0=deadbeef' });
    expect(garbage.status).toBe(401);
    expect(ran).toBe(false);
  });

  it('rejects a correctly signed request older than 5 minutes', async () => {
    h = await startHarness(services(), { allowedChannels: ['*'], allowedUsergroups: [] });
    const res = await h.command({ text: 'status' }, { ts: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(res.status).toBe(401);
  });

  it('rejects a correctly signed request dated more than 5 minutes in the future, and runs nothing', async () => {
    let ran = false;
    const s = services({ openIncidents: async () => ((ran = true), []) });
    h = await startHarness(s, { allowedChannels: ['*'], allowedUsergroups: [] });
    const res = await h.command({ text: 'status' }, { ts: Math.floor(Date.now() / 1000) + 10 * 60 });
    expect(res.status).toBe(401);
    // 4 minutes ahead is within Slack's tolerance (clock skew): accepted.
    const ok = await h.command({ text: 'help' }, { ts: Math.floor(Date.now() / 1000) + 4 * 60 });
    expect(ok.status).toBe(200);
    expect(ran).toBe(false);
  });

  it('answers a captured request once and refuses it when replayed', async () => {
    h = await startHarness(services(), { allowedChannels: ['*'], allowedUsergroups: [] });
    const body = new URLSearchParams(commandFields(h.fake, { text: 'help' })).toString();
    const first = await h.raw(body);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body).text).toContain('/rwx drain NODE');
    for (let i = 0; i < 3; i++) expect((await h.raw(body, first.headers)).status).toBe(401);
  });

  it('refuses politely in a channel that is not allowed, without queueing', async () => {
    let ran = false;
    h = await startHarness(
      services({
        openIncidents: async () => {
          ran = true;
          return [];
        },
      }),
      { allowedChannels: ['C0INC'], allowedUsergroups: [] },
    );
    const res = await h.command({ text: 'status', channel_id: 'C0RANDOM', channel_name: 'random' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      response_type: 'ephemeral',
      text: 'Sorry, `/rwx` does not answer in this channel. Please use it in <#C0INC>.',
    });
    expect(ran).toBe(false);
  });

  it('checks user group membership through usergroups.users.list', async () => {
    h = await startHarness(services(), { allowedChannels: ['*'], allowedUsergroups: ['S0ONCALL'] });
    h.fake.usergroups = { S0ONCALL: ['U0BOB'] };
    const refused = JSON.parse((await h.command({ text: 'status', user_id: 'U0ALICE' })).body);
    expect(refused.text).toContain('Sorry, `/rwx` is available to members of <!subteam^S0ONCALL>');
    const allowed = JSON.parse(
      (await h.command({ text: 'status', user_id: 'U0BOB', response_url: h.fake.responseUrl('bob') })).body,
    );
    expect(allowed.text).toContain('Working on');
    expect(h.fake.callsOf('usergroups.users.list')).toHaveLength(1); // cached for the second request
    await h.sent.until(1);
  });

  it('fails closed, politely, when Slack rate-limits the membership look-up', async () => {
    h = await startHarness(services(), { allowedChannels: ['*'], allowedUsergroups: ['S0ONCALL'] });
    h.fake.usergroups = { S0ONCALL: ['U0ALICE'] };
    h.fake.rateLimit('usergroups.users.list', 1, 30);
    const refused = JSON.parse((await h.command({ text: 'status' })).body);
    expect(refused.text).toContain('could not check your user group membership');
    const allowed = JSON.parse((await h.command({ text: 'status', response_url: h.fake.responseUrl('later') })).body);
    expect(allowed.text).toContain('Working on'); // the failure was not cached
    await h.sent.until(1);
  });

  it('acks with a refusal when the membership look-up hangs past its budget', async () => {
    const hang = new Promise<readonly string[]>(() => {}); // Slack never answers
    h = await startHarness(services(), { allowedChannels: ['*'], allowedUsergroups: ['S0ONCALL'] }, 'http', {
      usergroups: { usersOf: () => hang },
      authBudgetMs: 50,
    });
    const res = await h.command({ text: 'status' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).text).toContain('Slack took too long to confirm your user group membership');
  });

  it('answers help and malformed commands in the ack itself, escaped', async () => {
    h = await startHarness(services(), { allowedChannels: ['C0INC'], allowedUsergroups: [] });
    const help = JSON.parse((await h.command({ text: 'help' })).body);
    expect(help.text).toContain('/rwx drain NODE');
    const bad = JSON.parse((await h.command({ text: 'triage <!channel>' })).body);
    expect(bad.text).toContain('"&lt;!channel&gt;" is not a valid namespace name');
    expect(bad.text).not.toContain('<!channel>');
    // A right-to-left override in the text is not echoed back (it would reverse what the reader sees).
    const bidi = JSON.parse((await h.command({ text: 'triage ab\u202Ecd\u2066' })).body);
    expect(bidi.text).toContain('"abcd" is not a valid namespace name');
    expect(bidi.text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it('posts triage in the channel with `public`, and uploads the full report when it does not fit', async () => {
    const many = report(Array.from({ length: 30 }, (_, i) => claim('ns', `c${i}`, 'MOUNT_FAILED')));
    h = await startHarness(services({ triage: () => many }), { allowedChannels: ['C0INC'], allowedUsergroups: [] });
    await h.command({ text: 'triage ns public', response_url: h.fake.responseUrl('t') });
    await h.sent.until(1);
    const [answer] = h.fake.responses.get('t') as { response_type: string; text: string }[];
    expect(answer?.response_type).toBe('in_channel');
    expect(answer?.text).toContain('The full report is attached below.');
    await expect.poll(() => h!.fake.completedUploads.length).toBe(1);
    expect(h.fake.completedUploads[0]).toMatchObject({ channel_id: 'C0INC' });
    const [file] = [...h.fake.files.values()];
    expect(file?.bytes?.toString('utf8')).toContain('ns/c29');
  });

  it('says clearly when the node does not exist', async () => {
    h = await startHarness(services(), { allowedChannels: ['C0INC'], allowedUsergroups: [] });
    await h.command({ text: 'drain node-99', response_url: h.fake.responseUrl('d') });
    await h.sent.until(1);
    expect((h.fake.responses.get('d') as { text: string }[])[0]?.text).toContain(
      'There is no node `node-99` in the cluster',
    );
  });
});
