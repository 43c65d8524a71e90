// Files under a directory with a given extension, absolute paths, for scanning build output.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` (recursively) whose name ends with `ext`; [] when `dir` does not exist. */
export function sourceFilesWithExt(dir: string, ext: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith(ext))
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch {
    return [];
  }
}
