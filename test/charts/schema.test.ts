// values.schema.json: helm refuses bad values before rendering anything, naming the value; and the schema's
// settings are exactly the non-secret configuration keys the chart lets values set (src/config/keys.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS } from '../../src/config/index.js';
import { CHART, HELM, helm, templateArgs } from './helm.js';

const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as {
  properties: { config: { properties: Record<string, unknown> } };
};
/**
 * Set by the chart from its own values (slack.channel, clusterName, port, the Redis topology under redis.*), or
 * meaningless in a pod. RWX_REPLICA_ID must differ between pods: its default (the host name, which is the pod name)
 * is right, one value for all is not.
 */
const NOT_IN_CONFIG = ['SLACK_CHANNEL', 'RWX_CLUSTER_NAME', 'PORT', 'KUBECONFIG', 'RWX_KUBE_CONTEXT', 'RWX_REPLICA_ID'];
const REDIS_TOPOLOGY = [
  'REDIS_USERNAME',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_NAME',
  'REDIS_CLUSTER_NODES',
  'REDIS_TLS',
  'REDIS_TLS_CA_FILE',
];

describe('values.schema.json', () => {
  it('config takes every non-secret variable the chart does not set itself, and nothing else', () => {
    const want = CONFIG_KEYS.filter((k) => !k.secret && ![...NOT_IN_CONFIG, ...REDIS_TOPOLOGY].includes(k.env)).map(
      (k) => k.env,
    );
    expect(Object.keys(schema.properties.config.properties).sort()).toEqual(want.sort());
  });
});

describe.runIf(HELM.run)(`helm refuses bad values${HELM.note}`, () => {
  const base = ['ci/socket-mode-values.yaml'];
  it('accepts the base values (so each refusal below is the change it makes)', () => {
    HELM.check();
    expect(helm(templateArgs(base)).status).toBe(0);
  });

  // Each case: the --set flags, what helm's message must name.
  it.each([
    [['slack.mode=grpc'], /slack\.mode/], // not a mode
    [['slack.channel=not a channel'], /slack\.channel/], // spaces: not an ID or name
    [['image.digest=sha256:1234'], /image\.digest/], // too short for a digest
    [['config.RWX_GROUPWAIT=1m'], /RWX_GROUPWAIT/], // a typo in a setting's name
    [['config.RWX_STUCK_AFTER=5 minutes'], /config\.RWX_STUCK_AFTER/], // not a duration
    [['config.LOG_LEVEL=loud'], /config\.LOG_LEVEL/],
    [['config.RWX_TEAM_CHANNELS=payments=#payments'], /config\.RWX_TEAM_CHANNELS/], // a channel name, not an ID
    [['config.SLACK_BOT_TOKEN=xoxb-1'], /SLACK_BOT_TOKEN/], // a token does not belong in values
    [['slack.mode=http'], /ingress\.host/], // HTTP mode with an Ingress needs its host
    [['port=70000'], /port/],
    [['replicas=-1'], /replicas/],
    [['redis.persistence.storageClass=Not A Class'], /redis\.persistence\.storageClass/],
    [['policy.validationActions={Deny,Warn}'], /policy\.validationActions/], // Kubernetes refuses the pair
    [['agent.capabilities={SYS_ADMIN}'], /agent\.capabilities/], // only read-side capabilities
    [['metrics.prometheusRule.slackFailingRatio=2'], /slackFailingRatio/],
    [['metrics.serviceMonitor.interval=often'], /metrics\.serviceMonitor\.interval/],
    [['unknownKey=1'], /unknownKey/], // a misspelt top-level key
  ])('%j', (set, names) => {
    const r = helm(templateArgs(base, set));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/values don't meet the specifications of the schema/);
    expect(r.stderr).toMatch(names);
  });

  it('the two required values, when missing, are one clear message (helm lint with the defaults too)', () => {
    const r = helm(templateArgs(base, ['image.repository=']));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /set image\.repository \(the image you built and pushed, or a release's\); e\.g\. helm install/,
    );
    // helm lint reports a template's fail as information: the defaults lint clean, with that one message
    const lint = helm(['lint', CHART]);
    const out = lint.stdout + lint.stderr;
    expect(lint.status).toBe(0);
    expect(out.split('\n').filter((l) => /\[(ERROR|WARNING)\]/.test(l))).toEqual([]);
    expect(out.match(/set image\.repository .* and slack\.channel .*docs\/install\.md/g)).toHaveLength(1);
  });
});
