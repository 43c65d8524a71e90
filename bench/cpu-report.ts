// Loaded with `node --import` into each process bench/cli.ts times: at exit, writes the process's own CPU time
// (user + system, module loading included) in ms to the file named by RWX_BENCH_CPU_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.RWX_BENCH_CPU_FILE;
if (file)
  process.on('exit', () => {
    const u = process.cpuUsage();
    writeFileSync(file, String((u.user + u.system) / 1000));
  });
