// The one API status -> error code mapping that lists, watches, access reviews and the gate's client share.
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/gate/client.js';
import { statusError, statusMessage, unreachableError } from '../../src/kube/status.js';

describe('statusError', () => {
  it.each([
    [401, 'KUBE_UNAUTHORIZED', false, /https:\/\/k: credentials rejected \(expired\?\)/],
    [403, 'KUBE_FORBIDDEN', false, /list pods: forbidden: pods is forbidden/],
    [404, 'NOT_FOUND', false, /list pods: pods is forbidden/], // the Status message is kept whatever the code
    [410, 'KUBE_GONE', true, /list pods: pods is forbidden/],
    [429, 'KUBE_API', true, /answered 429/], // throttled: retry
    [500, 'KUBE_API', true, /https:\/\/k answered 500/],
    [503, 'KUBE_UNREACHABLE', true, /answered 503/], // cannot serve: the cluster cannot be seen, as when refused
    [502, 'KUBE_UNREACHABLE', true, /answered 502/],
  ])('%d is %s', (status, code, retryable, msg) => {
    const e = statusError(status, { message: 'pods is forbidden\nsecond line' }, 'list pods', { server: 'https://k' });
    expect(e.code).toBe(code);
    expect(e.retryable).toBe(retryable);
    expect(e.message).toMatch(msg);
    expect(e.message).not.toMatch(/second line/);
  });

  it('adds the RBAC hint to a 403 only', () => {
    expect(statusError(403, undefined, 'create pod', { forbiddenHint: 'see rbac' }).message).toBe(
      'create pod: forbidden; see rbac',
    );
    expect(statusError(500, undefined, 'create pod', { forbiddenHint: 'see rbac' }).message).not.toMatch(/rbac/);
  });

  it.each([
    [{ message: 'm' }, 'm'],
    ['{"kind":"Status","message":"from json"}', 'from json'],
    ['plain text\nmore', 'plain text'],
    [undefined, ''],
    [{ message: 3 }, ''],
  ])('statusMessage(%j)', (body, want) => expect(statusMessage(body)).toBe(want));
});

// The gate's typed client goes through the same mapping: the same status gives the same code as a list would.
describe('kubeError (client-node errors)', () => {
  it.each([
    [401, 'KUBE_UNAUTHORIZED'],
    [403, 'KUBE_FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [410, 'KUBE_GONE'],
    [500, 'KUBE_API'],
  ])('HTTP %d -> %s, as statusError', (status, code) => {
    const e = kubeError(Object.assign(new Error('HTTP'), { code: status, body: '{"message":"x"}' }), 'get pod a/b');
    expect(e.code).toBe(code);
    expect(e.code).toBe(statusError(status, undefined, 'x').code);
  });

  it('a transport failure is KUBE_UNREACHABLE with its code', () => {
    const e = kubeError(Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } }), 'list nodes');
    expect(e.code).toBe('KUBE_UNREACHABLE');
    expect(e.message).toBe('list nodes: cannot reach the API server (ECONNREFUSED)');
  });
});

describe('unreachableError', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'ECONNREFUSED'],
    [Object.assign(new Error('x'), { cause: { code: 'ENOTFOUND' } }), 'ENOTFOUND'],
    [new Error('socket hang up\nstack'), 'socket hang up'], // no known code: the first line of the message
    // a certificate the kubeconfig does not trust: what to check, not only OpenSSL's words
    [
      Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      "self-signed certificate: not trusted by the kubeconfig's certificate-authority",
    ],
    // https:// to a plain-HTTP port: OpenSSL's line of internals becomes what to check
    [
      Object.assign(new Error('write EPROTO 80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number'), {
        code: 'EPROTO',
      }),
      'not TLS on that port: check the scheme and port of the server URL',
    ],
  ])('%s', (e, why) => {
    expect(unreachableError(e, { server: 'https://k' }).message).toBe(
      `cannot reach the API server at https://k (${why})`,
    );
  });
});
