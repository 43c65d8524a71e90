// The one protobuf body the simulator reads: a SelfSubjectAccessReview. Some kubectl builds send
// `kubectl auth can-i` as application/vnd.kubernetes.protobuf (and accept JSON back), as a real API server allows.
// Everything else the simulator serves is JSON only; other protobuf bodies get 415 from the caller.
//
// Wire format: the 4-byte magic "k8s\0", then a runtime.Unknown {1: typeMeta {1: apiVersion, 2: kind}, 2: raw},
// where raw is the object: SelfSubjectAccessReview {1: metadata, 2: spec}, spec {1: resourceAttributes,
// 2: nonResourceAttributes}, ResourceAttributes {1: namespace, 2: verb, 3: group, 4: version, 5: resource,
// 6: subresource, 7: name}, NonResourceAttributes {1: path, 2: verb}.

type Rec = Record<string, unknown>;

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const RESOURCE_FIELDS = ['', 'namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
const NON_RESOURCE_FIELDS = ['', 'path', 'verb'];

/** The length-delimited fields of one message, by field number (the last one wins, as in protobuf). */
function fields(buf: Buffer): Map<number, Buffer> {
  const out = new Map<number, Buffer>();
  let at = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= buf.length || shift > 35) throw new Error('truncated varint');
      const b = buf[at++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  while (at < buf.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) varint();
    else if (wire === 2) {
      const len = varint();
      if (at + len > buf.length) throw new Error('truncated field');
      out.set(key >>> 3, buf.subarray(at, at + len));
      at += len;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

function strings(buf: Buffer | undefined, names: string[]): Rec | undefined {
  if (!buf) return undefined;
  const out: Rec = {};
  for (const [n, v] of fields(buf)) if (names[n]) out[names[n]] = v.toString('utf8');
  return out;
}

/** Whether a Content-Type names the Kubernetes protobuf encoding. */
export function isProtobuf(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim() === 'application/vnd.kubernetes.protobuf';
}

/** Decodes a protobuf SelfSubjectAccessReview into its JSON form; throws on anything else. */
export function decodeAccessReview(body: Buffer): Rec {
  if (!body.subarray(0, 4).equals(MAGIC)) throw new Error('missing the k8s protobuf magic');
  const unknown = fields(body.subarray(4));
  const kind = fields(unknown.get(1) ?? Buffer.alloc(0))
    .get(2)
    ?.toString('utf8');
  if (kind !== 'SelfSubjectAccessReview') throw new Error(`protobuf ${kind ?? 'object'} is not supported`);
  const spec = fields(fields(unknown.get(2) ?? Buffer.alloc(0)).get(2) ?? Buffer.alloc(0));
  const resourceAttributes = strings(spec.get(1), RESOURCE_FIELDS);
  const nonResourceAttributes = strings(spec.get(2), NON_RESOURCE_FIELDS);
  return {
    kind,
    apiVersion: 'authorization.k8s.io/v1',
    spec: {
      ...(resourceAttributes && { resourceAttributes }),
      ...(nonResourceAttributes && { nonResourceAttributes }),
    },
  };
}
