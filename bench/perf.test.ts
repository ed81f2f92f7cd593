import test from 'node:test';
import assert from 'node:assert/strict';
import { PERF_HZ, addPerfScript, breakdownLines, perfRecordCommand, type PerfBreakdown } from './perf';

/** One `perf script -F comm,pid,tid,ip,sym,dso` block: header, then frames innermost first. */
const sample = (comm: string, pid: number, tid: number, frames: string[]): string =>
  [`${comm} ${pid}/${tid} `, ...frames.map((f) => `\t         192fa46 ${f}`)].join('\n');

const times = (n: number, s: string): string[] => Array.from({ length: n }, () => s);

test('perf samples: Node threads by kind (from any of their samples), other processes by name, the name after exec', () => {
  const script = [
    // pid 100 starts as perf-exec, then execs node: one main thread.
    sample('perf-exec', 100, 100, ['ffffffff81000000 do_execveat_common ([kernel.kallsyms])']),
    ...times(
      3,
      sample('node', 100, 100, ['v8::internal::Scanner::Next (/usr/bin/node)', 'node::Start (/usr/bin/node)']),
    ),
    // The connection worker: one sample proves it; the others have chains cut short (OpenSSL assembly) or pass
    // through uv__work_done, which runs on the loop's own thread.
    sample('node', 100, 107, [
      'Builtins_LoadIC (/usr/bin/node)',
      'node::worker::Worker::Run (/usr/bin/node)',
      'start_thread (libc.so.6)',
    ]),
    ...times(4, sample('node', 100, 107, ['_aesni_ctr32_ghash_6x (/usr/bin/node)'])),
    ...times(
      2,
      sample('node', 100, 107, [
        'ffffffff81500000 _copy_to_iter ([kernel.kallsyms])',
        'uv__read (/usr/bin/node)',
        'uv__work_done (/usr/bin/node)',
      ]),
    ),
    sample('node', 100, 107, ['__memmove_avx512_unaligned_erms (libc.so.6)']),
    // A libuv pool thread writing a file.
    ...times(
      5,
      sample('node', 100, 110, [
        'ffffffff81600000 copy_folio_from_iter_atomic ([kernel.kallsyms])',
        'uv__fs_work (/usr/bin/node)',
        'worker (/usr/bin/node)',
      ]),
    ),
    // A V8 helper thread.
    ...times(
      2,
      sample('node', 100, 103, [
        'v8::internal::Scavenger::Process (/usr/bin/node)',
        'node::(anonymous namespace)::PlatformWorkerThread (/usr/bin/node)',
      ]),
    ),
    // OpenSSH's client: two processes.
    ...times(6, sample('ssh', 200, 200, ['_aesni_ctr32_ghash_6x (libcrypto.so.3)'])),
    ...times(3, sample('sftp', 201, 201, ['ffffffff81600000 copy_folio_from_iter_atomic ([kernel.kallsyms])'])),
  ].join('\n\n');
  const b: PerfBreakdown = { threads: new Map(), workerLeaf: new Map() };
  addPerfScript(script, b);
  const s = (n: number): number => n / PERF_HZ;
  assert.deepEqual(Object.fromEntries(b.threads), {
    'node: main thread': s(4),
    'node: connection worker threads': s(8),
    'node: libuv pool (file I/O)': s(5),
    'node: V8 helper threads (GC, compiler)': s(2),
    ssh: s(6),
    sftp: s(3),
  });
  assert.deepEqual(Object.fromEntries(b.workerLeaf), {
    'V8 and JavaScript': s(1),
    'AES-GCM': s(4),
    'kernel (socket, page cache, scheduling)': s(2),
    memcpy: s(1),
  });

  // Per GiB: 2 runs of 1 MiB each, so a run's CPU × 1024 (8 worker samples: 8 / PERF_HZ / 2 × 1024 = 4.10 s).
  const lines = breakdownLines(b, 2, 1024 ** 2).join('\n');
  assert.match(lines, /\| node: connection worker threads \| 4\.10 \|/);
  assert.match(lines, /\| \*\*all\*\* \| \*\*14\.35\*\* \|/);
  assert.match(lines, /by innermost frame: AES-GCM 2\.05, kernel \(socket, page cache, scheduling\) 1\.03, /);
  assert.match(breakdownLines(b, 1, 1).join('\n'), /CPU-s per run/);
});

test('perf record wraps the client command and keeps its arguments', () => {
  const c = perfRecordCommand('/tmp/x.data', 'sftp', ['-b', 'batch']);
  assert.equal(c.cmd, 'perf');
  assert.deepEqual(c.args.slice(-4), ['--', 'sftp', '-b', 'batch']);
  assert.ok(c.args.includes('cpu-clock') && c.args.includes('-g'));
});
