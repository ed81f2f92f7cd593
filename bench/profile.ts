/**
 * Summaries of the V8 CPU profiles `node --cpu-prof` writes (one `.cpuprofile` per thread and process):
 * self time per function, main thread and worker threads apart, so the report can say where Sluice's CPU goes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The parts of the DevTools `Profile` object (Chrome DevTools Protocol, Profiler domain) used here. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time (µs) per function key, over any number of profiles. */
export type SelfTimes = Map<string, number>;

/** Shortens a script URL to `pkg/file.js` inside node_modules, or a path relative to dist/. */
function shortUrl(url: string): string {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) return u.slice(nm + 'node_modules/'.length);
  const dist = u.lastIndexOf('/dist/');
  return dist >= 0 ? u.slice(dist + 1) : u.startsWith('node:') ? u : path.basename(u);
}

/** Adds one profile's self times into `into` (each sample's time delta goes to the sampled function). */
export function addSelfTimes(profile: CpuProfile, into: SelfTimes): void {
  const keyOf = new Map<number, string>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const where = shortUrl(f.url);
    keyOf.set(n.id, `${f.functionName || '(anonymous)'}${where ? ` ${where}:${f.lineNumber + 1}` : ''}`);
  }
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const key = keyOf.get(samples[i]) ?? '(unknown)';
    into.set(key, (into.get(key) ?? 0) + Math.max(0, deltas[i] ?? 0));
  }
}

/** Markdown list of the top functions by self time (idle excluded from the shares). */
export function topFunctions(times: SelfTimes, limit = 8): string {
  const idle = times.get('(idle)') ?? 0;
  const busy = [...times.entries()].filter(([k]) => k !== '(idle)');
  const total = busy.reduce((s, [, v]) => s + v, 0);
  if (!total) return '  (no samples)';
  busy.sort((a, b) => b[1] - a[1]);
  const lines = busy.slice(0, limit).map(([k, v]) => `  - ${((100 * v) / total).toFixed(1)} % \`${k}\``);
  return [`  busy ${(total / 1e6).toFixed(2)} s sampled, idle ${(idle / 1e6).toFixed(2)} s`, ...lines].join('\n');
}

function filesIn(dir: string): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) out.push(...filesIn(p));
    else if (d.name.endsWith('.cpuprofile')) out.push(p);
  }
  return out;
}

/** The `<case id>/<client id>/` folders under `root` (as the bench's profiling options lay them out), sorted. */
export function caseClientDirs(root: string): Array<{ caseId: string; client: string; dir: string }> {
  if (!fs.existsSync(root)) return [];
  const out: Array<{ caseId: string; client: string; dir: string }> = [];
  for (const caseId of fs.readdirSync(root).sort()) {
    const cdir = path.join(root, caseId);
    if (!fs.statSync(cdir).isDirectory()) continue;
    for (const client of fs.readdirSync(cdir).sort()) out.push({ caseId, client, dir: path.join(cdir, client) });
  }
  return out;
}

/**
 * Summarizes every `<case>/<client>/` folder under `root`: top self-time functions of the main thread and of the
 * worker threads (file names `CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile`; thread 0 is the main thread).
 * @returns Markdown, or '' when there are no profiles
 */
export function summarizeProfiles(root: string): string {
  const out: string[] = [];
  for (const { caseId: caseDir, client, dir } of caseClientDirs(root)) {
    const files = filesIn(dir);
    if (!files.length) continue;
    const main: SelfTimes = new Map();
    const workers: SelfTimes = new Map();
    let workerFiles = 0;
    for (const f of files) {
      const thread = Number(path.basename(f).split('.')[4]);
      let profile: CpuProfile;
      try {
        profile = JSON.parse(fs.readFileSync(f, 'utf8')) as CpuProfile;
      } catch {
        continue;
      }
      if (thread === 0) addSelfTimes(profile, main);
      else {
        addSelfTimes(profile, workers);
        workerFiles++;
      }
    }
    out.push(
      `**${caseDir} / ${client}** (${files.length} profiles in \`${path.relative(path.resolve(root, '..', '..', '..'), dir)}\`)`,
      '',
      '- main thread:',
      topFunctions(main),
      `- worker threads (${workerFiles} profiles):`,
      topFunctions(workers),
      '',
    );
  }
  return out.join('\n');
}
