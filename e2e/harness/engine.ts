/**
 * TEST ONLY: the real engine façade (`SluiceService`, app/node/service.ts) for a spec, loaded from the
 * compiled dist/ (its connection workers are .js files next to it), with a temp data folder, an in-memory
 * SecretStore and a private known_hosts file; `restartTestEngine` opens a new service on the same folder.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SluiceService, ServiceOptions } from '../../app/node/service';
import type { MemorySecretStore } from '../../app/node/stores/sites';
import { REPO_ROOT } from './server';

export interface TestEngine {
  service: SluiceService;
  /** Data folder (sluice.db), removed by `close`. */
  home: string;
  /** known_hosts the service reads and writes. */
  knownHostsPath: string;
  close(): Promise<void>;
}

/**
 * Compiled output to load the engine from: `SLUICE_E2E_DIST` when set (a private build, safe from a concurrent
 * `npm run build` rewriting dist/ mid-run), else the repo's dist/.
 */
const DIST = process.env.SLUICE_E2E_DIST ? path.resolve(process.env.SLUICE_E2E_DIST) : path.join(REPO_ROOT, 'dist');

/**
 * A compiled engine module (e.g. `app/node/engine/engine.js`, for a spec's engine wrapper), from the same dist/ the
 * service loads.
 */
export function requireDist<T>(relative: string): T {
  const file = path.join(DIST, relative);
  if (!fs.existsSync(file))
    throw new Error(
      `e2e: ${file} is missing; run \`npm run build\` first (the engine runs compiled, with worker threads)`,
    );
  return require(file) as T;
}

/** Creates a real service over temp state. */
export async function startTestEngine(opts: Partial<ServiceOptions> = {}): Promise<TestEngine> {
  const home = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'sluice-e2e-home-'));
  const knownHostsPath = path.join(home, 'known_hosts');
  await fs.promises.writeFile(knownHostsPath, '');
  return openTestEngine(home, knownHostsPath, opts);
}

/**
 * The app restarted: closes `engine`'s service (its running jobs are stored as queued) and opens a new one on the same
 * data folder and known_hosts, with the same options. The returned engine's `close` removes the folder.
 */
export async function restartTestEngine(engine: TestEngine, opts: Partial<ServiceOptions> = {}): Promise<TestEngine> {
  await engine.service.close();
  return openTestEngine(engine.home, engine.knownHostsPath, opts);
}

function openTestEngine(home: string, knownHostsPath: string, opts: Partial<ServiceOptions>): TestEngine {
  const { SluiceService: Service } = requireDist<{ SluiceService: typeof SluiceService }>('app/node/service.js');
  const { MemorySecretStore: Secrets } = requireDist<{ MemorySecretStore: typeof MemorySecretStore }>(
    'app/node/stores/sites.js',
  );
  const service = new Service({
    home,
    secrets: new Secrets(),
    knownHostsPath,
    // No agent and no ~/.ssh defaults from the machine running the tests.
    env: { HOME: home, USERPROFILE: home, PATH: process.env.PATH },
    readyTimeoutMs: 30_000,
    ...opts,
  });
  return {
    service,
    home,
    knownHostsPath,
    async close() {
      await service.close();
      await fs.promises.rm(home, { recursive: true, force: true });
    },
  };
}
