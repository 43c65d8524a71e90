// Placeholder until its issue lands: replaced by the real command.
import { RwxError } from '../errors.js';
import type { Command } from './io.js';

/** Not built yet. */
export const run: Command = async () => {
  throw new RwxError('INTERNAL', 'demo is not built yet');
};
