// Reading one input (a snapshot or manifest file, or stdin) as text, within the cap of src/kube/input-limit.ts:
// a regular file over the cap is refused by its size before a byte is read; stdin, pipes and devices are counted
// as they arrive and refused the moment they pass it. Shared by `--snapshot` and `rwx policy check -f`.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { RwxError } from '../errors.js';
import { SNAPSHOT_MAX_BYTES } from './input-limit.js';

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
};

/**
 * The text of `path` ('-' reads `stdin`), at most `maxBytes` (default: the documented cap). Throws
 * RwxError('INPUT') "`label`: cannot read: no such file", or "`label`: N MB is over the M MB input limit".
 */
export async function readInputText(
  path: string,
  stdin: NodeJS.ReadableStream,
  label: string,
  maxBytes = SNAPSHOT_MAX_BYTES,
): Promise<string> {
  try {
    if (path !== '-') {
      const st = await stat(path);
      if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      if (st.isFile() && st.size > maxBytes) throw tooLarge(label, st.size, maxBytes);
    }
    return await readCapped(path === '-' ? stdin : createReadStream(path), label, maxBytes);
  } catch (e) {
    if (e instanceof RwxError) throw e;
    const code = (e as { code?: string }).code ?? '';
    const why = REASONS[code] ?? (code || (e instanceof Error ? e.message : String(e)));
    throw new RwxError('INPUT', `${label}: cannot read: ${why}`, { cause: e });
  }
}

async function readCapped(stream: NodeJS.ReadableStream, label: string, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    total += b.length;
    if (total > maxBytes) {
      (stream as { destroy?: () => void }).destroy?.();
      throw tooLarge(label, total, maxBytes, true);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** "612 MB is over the 500 MB input limit"; from a stream, whose size is not known: "more than 500 MB is...". */
function tooLarge(label: string, bytes: number, maxBytes: number, streamed = false): RwxError {
  const mb = (n: number) => `${Math.ceil(n / 1024 / 1024)} MB`;
  const size = streamed ? `more than ${mb(maxBytes)}` : mb(bytes);
  return new RwxError(
    'INPUT',
    `${label}: ${size} is over the ${mb(maxBytes)} input limit; read fewer kinds or one namespace at a time`,
  );
}
