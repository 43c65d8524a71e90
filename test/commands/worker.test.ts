// The worker side without Bolt: one job answers the response_url once, uploads the full report to the right
// place, and a retry after a failed upload does not answer twice. Plus /rwx status from the incident store.
import { describe, expect, it } from 'vitest';
import {
  processCommandJob,
  openIncidentsFromStore,
  type CommandJob,
  type CommandServices,
  type ReportUploader,
  type ResponseSender,
} from '../../src/commands/index.js';
import type { CommandResponse, Attachment } from '../../src/commands/message.js';
import { fastClient, slackReportUploader } from '../../src/commands/slack-adapters.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { RwxError } from '../../src/errors.js';
import { mergeHistory } from '../../src/domain/history.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import type { IncidentRecord } from '../../src/store/record.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import { startFakeSlack } from '../support/fake-slack.js';
import { claim, report, rolloutIncident } from './fixtures.js';

const NOW = Date.parse('2026-11-30T09:15:00Z');

function services(over: Partial<CommandServices> = {}): CommandServices {
  const index = ClusterIndex.fromSnapshot(emptySnapshot());
  return {
    clock: new ManualClock(NOW),
    cluster: { index: () => index },
    triage: () => report(Array.from({ length: 25 }, (_, i) => claim('ns', `c${i}`, 'MOUNT_FAILED'))),
    evaluate: () => ({
      incidents: [],
      drain: () => {
        throw new RwxError('NOT_FOUND', 'no');
      },
    }),
    openIncidents: async () => [],
    ...over,
  };
}

class Recorder implements ResponseSender, ReportUploader {
  answers: CommandResponse[] = [];
  uploads: { target: { channelId: string; userId: string; public: boolean }; file: Attachment }[] = [];
  failUploads = 0;
  async send(_url: string, body: CommandResponse) {
    this.answers.push(body);
  }
  async upload(target: { channelId: string; userId: string; public: boolean }, file: Attachment) {
    if (this.failUploads-- > 0)
      throw new RwxError('SLACK_API', 'files.completeUploadExternal: internal_error', { retryable: true });
    this.uploads.push({ target, file });
  }
}

describe('processCommandJob', () => {
  it('answers once; a retry after a failed upload only retries the upload', async () => {
    const rec = new Recorder();
    rec.failUploads = 1;
    const data: CommandJob = {
      text: 'triage ns',
      userId: 'U0ALICE',
      channelId: 'C0INC',
      responseUrl: 'https://hooks.slack.com/x',
    };
    const mark = async () => {
      data.responded = true;
    };
    await expect(
      processCommandJob(data, { services: services(), sender: rec, uploader: rec }, mark),
    ).rejects.toMatchObject({ code: 'SLACK_API' });
    await processCommandJob(data, { services: services(), sender: rec, uploader: rec }, mark);
    expect(rec.answers).toHaveLength(1);
    expect(rec.answers[0]?.text).toContain('The full report is in your DM with me.');
    expect(rec.uploads).toEqual([
      {
        target: { channelId: 'C0INC', userId: 'U0ALICE', public: false },
        file: expect.objectContaining({ title: 'RWX triage: namespace ns' }),
      },
    ]);
  });

  it('without an uploader, points at the CLI for the full report', async () => {
    const rec = new Recorder();
    await processCommandJob(
      { text: 'triage', userId: 'U1', channelId: 'C1', responseUrl: 'u' },
      { services: services(), sender: rec },
      async () => {},
    );
    expect(rec.answers[0]?.text).toContain('Run `rwx triage` on the CLI for the full report.');
  });

  it('a failing engine becomes an honest reply, not a crash', async () => {
    const rec = new Recorder();
    await processCommandJob(
      { text: 'triage', userId: 'U1', channelId: 'C1', responseUrl: 'u' },
      {
        services: services({
          triage: () => {
            throw new RwxError('KUBE_UNREACHABLE', 'API server <did not> answer');
          },
        }),
        sender: rec,
      },
      async () => {},
    );
    expect(rec.answers[0]?.text).toBe(
      ':warning: Sorry, that did not work: API server &lt;did not&gt; answer (KUBE_UNREACHABLE). Nothing was changed.',
    );
  });
});

describe('report uploads', () => {
  it('private reports go to the DM (conversations.open), public ones to the channel', async () => {
    const fake = await startFakeSlack();
    try {
      const slack = createWebSlackApi({ token: 'xoxb-test', slackApiUrl: fake.apiUrl });
      const up = slackReportUploader(slack, fastClient('xoxb-test', fake.apiUrl));
      const file = { filename: 'r.txt', title: 'RWX triage', content: 'full' };
      await up.upload({ channelId: 'C0INC', userId: 'U0ALICE', public: false }, file);
      await up.upload({ channelId: 'C0INC', userId: 'U0ALICE', public: true }, file);
      expect(fake.callsOf('conversations.open').map((c) => c.args.users)).toEqual(['U0ALICE']);
      expect(fake.completedUploads.map((u) => u.channel_id)).toEqual(['D0ALICE', 'C0INC']);
    } finally {
      await fake.close();
    }
  });
});

describe('openIncidentsFromStore', () => {
  it('lists open, unresolved records with verdict, thread and ack, and resolved ones waiting for a CronJob', async () => {
    const clock = new ManualClock(NOW);
    const store = new MemoryIncidentStore(clock);
    const incident = rolloutIncident();
    const rec = (key: string, over: Partial<IncidentRecord> = {}): IncidentRecord => ({
      key,
      channel: 'C0INC',
      createdAt: NOW - 600_000,
      observed: {
        incident: key === incident.key ? incident : { ...incident, key, title: key, verdict: 'UNEXPLAINED' },
        hash: 'h',
        history: mergeHistory(undefined, incident, NOW).history,
      },
      lifecycle: { phase: 'pending' },
      buttons: {},
      ...over,
    });
    const thread = { ts: '1764493200.000100', sent: { hash: 'h', at: NOW } };
    await store.create(
      rec('rollout/kube-system/ebs-csi-node@2', {
        lifecycle: { phase: 'open', thread },
        buttons: { ack: { user: 'U0BOB', at: NOW } },
      }),
    );
    await store.create(rec('node/node-7', { lifecycle: { phase: 'resolved', resolution: { at: NOW - 1000 } } }));
    await store.create(rec('unexplained/x'));
    // Resolved and cleared, its thread waiting for the backup: listed as followed up. Resolved by hand while it
    // still fires: silenced, not listed.
    const awaiting = { cronJobs: ['data/nightly-backup'], until: NOW + 3_600_000 };
    const following = { phase: 'following-up' as const, threadTs: thread.ts, awaiting };
    const followed = rec('followed/a', { lifecycle: { ...following, resolution: { at: NOW - 1000 } } });
    await store.create({ ...followed, observed: { ...followed.observed, cleared: { at: NOW - 2000 } } });
    await store.create(rec('silenced/b', { lifecycle: { ...following, resolution: { at: NOW - 1000, by: 'U0BOB' } } }));
    await store.create(rec('closed/y'));
    await store.close('closed/y', 60_000);
    const open = await openIncidentsFromStore(store)();
    expect(open.map((o) => o.key).sort()).toEqual([
      'followed/a',
      'rollout/kube-system/ebs-csi-node@2',
      'unexplained/x',
    ]);
    expect(open.find((o) => o.key === 'followed/a')?.followingUp).toEqual({
      cronJobs: ['data/nightly-backup'],
      until: NOW + 3_600_000,
    });
    expect(open.find((o) => o.key === 'unexplained/x')?.followingUp).toBeUndefined();
    expect(open.find((o) => o.key.startsWith('rollout'))).toMatchObject({
      title: 'ebs-csi-node revision 2 (ebs.csi.aws.com)',
      verdict: 'FOLLOWS_ROLLOUT',
      threadTs: '1764493200.000100',
      acknowledgedBy: 'U0BOB',
    });
    expect(open.find((o) => o.key === 'unexplained/x')).toMatchObject({
      title: 'unexplained/x',
      verdict: 'UNEXPLAINED',
    });
  });
});
