// How much a command reads from a snapshot or manifest file (or stdin) before refusing it. The text is parsed as
// one string, and a JavaScript string holds at most about 512 MB, so a larger input could never be read: it is
// refused up front (a file by its size before reading, stdin as soon as that many bytes have arrived) rather
// than after reading it all. A file that large is usually a mistake (a log, a disk image); dump fewer kinds or
// one namespace at a time.

/** The cap on one snapshot or manifest input, in MB (1 MB = 2^20 bytes). */
export const SNAPSHOT_MAX_MB = 500;

/** The cap in bytes. */
export const SNAPSHOT_MAX_BYTES = SNAPSHOT_MAX_MB * 1024 * 1024;
