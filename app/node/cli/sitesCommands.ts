/**
 * The grammar and actions of `sluice sites list|add|rm|import|export` (issue #15), over the saved sites shared with the
 * desktop app (`<data folder>/sluice.db`; SLUICE_HOME overrides the folder). The command line has no secret store:
 * passwords a source holds are not imported (each is noted), and `export --with-passwords` is refused.
 */
import os from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { siteInputSchema } from '../../common/ipc/contract';
import type { AuthMethod, Site } from '../../common/model/site';
import { IMPORT_FORMATS, IMPORT_FORMAT_LABELS, type ImportFormat } from '../../common/model/siteImport';
import { SluiceError } from '../errors';
import { resolveHome } from '../stores/dataDir';
import { forgetStoredSecret } from '../stores/secretsFile';
import { SitesStore } from '../stores/sites';
import { applyImport, exportSites, previewImport, writeExport } from '../sites/siteImport';
import { toFatal, writeFatal } from './fatal';
import { isInteractive, terminalPrompter } from './prompt';
import { parseRemoteUrl } from '../engine/remoteSpec';
import { previewLines, siteLine, siteTable } from './sitesOutput';
import { plural } from './units';

const SITES_HELP = `
Saved sites are shared with the desktop app and kept in <data folder>/sluice.db
(SLUICE_HOME overrides the folder). A site's name works as the host of a URL:
sluice get sftp://NAME/path uses the site's host, port, user and key (a saved
site wins over DNS and ssh_config aliases; a user@ or :port in the URL, and -i,
still win over the site's).
Paths are read in the site's remote folder: sftp://NAME is that folder,
sftp://NAME/x is x inside it, sftp://NAME//abs/x is the absolute /abs/x,
sftp://NAME/~/x is x in the login folder (a site without a folder reads
sftp://NAME/x as the absolute /x, as any URL).
Ids: the first 8 characters that \`sluice sites list\` shows are enough (4 at
least). The command line keeps no passwords: import them in the app (Sites →
Import…), or type them when connecting.

Formats of sluice sites import:
${IMPORT_FORMATS.map((f) => `  ${f.padEnd(10)} ${IMPORT_FORMAT_LABELS[f]}`).join('\n')}

Examples:
  sluice sites add web sftp://deploy@web.example.com:2222/var/www --folder Work
  sluice sites add db sftp://db.example.com -i ~/.ssh/id_ed25519
  sluice get sftp://web/index.html ./                 # /var/www/index.html
  sluice get sftp://web//var/log/nginx/access.log ./  # absolute: two slashes
  sluice sites import openssh --dry-run      # what ~/.ssh/config would give
  sluice sites import filezilla ~/.config/filezilla/sitemanager.xml --yes
  sluice sites export sites.json`;

/** The local user name, the login name of a source or URL that names none (as ssh uses). */
function localUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'root';
  }
}

/**
 * Runs `action` on the opened sites store, then closes it; errors become the CLI's fatal error. @returns the exit code
 */
async function withSites(
  json: boolean,
  action: (store: SitesStore, home: string) => number | Promise<number>,
): Promise<number> {
  let store: SitesStore | undefined;
  try {
    const home = resolveHome();
    store = new SitesStore(home);
    return await action(store, home);
  } catch (e) {
    return writeFatal(toFatal(e), json);
  } finally {
    store?.close();
  }
}

/**
 * The saved site a command names: its id, the first 4 or more characters of its id, or its name (case-insensitive).
 * @throws SluiceError NOT_FOUND when nothing matches; USAGE when several do
 */
export function findSite(sites: Site[], ref: string): Site {
  const exact = sites.find((s) => s.id === ref);
  if (exact) return exact;
  const byId = ref.length >= 4 ? sites.filter((s) => s.id.startsWith(ref.toLowerCase())) : [];
  const byName = sites.filter((s) => s.name.toLowerCase() === ref.toLowerCase());
  const found = [...new Set([...byId, ...byName])];
  if (found.length === 1) return found[0];
  if (found.length === 0) throw new SluiceError('NOT_FOUND', `No saved site is named or has the id ${ref}`);
  throw new SluiceError(
    'USAGE',
    `${ref} names ${found.length} saved sites (${found.map((s) => s.id.slice(0, 8)).join(', ')}): give the id`,
  );
}

/** `sites add`: a site from a URL; its name must be free (a name is what a URL uses). */
function addSite(
  store: SitesStore,
  name: string,
  url: string,
  o: { identity?: string; folder?: string; passwordAuth?: boolean; json?: boolean },
): number {
  const spec = parseRemoteUrl(url);
  if (!spec) throw new SluiceError('USAGE', `sites add needs an sftp:// URL, got ${JSON.stringify(url)}`);
  const taken = store.list().sites.find((s) => s.name.toLowerCase() === name.trim().toLowerCase());
  if (taken) throw new SluiceError('EXISTS', `A saved site is already named ${taken.name} (${taken.id.slice(0, 8)})`);
  const authMethod: AuthMethod = o.identity ? 'key' : o.passwordAuth ? 'password' : 'agent';
  const input = {
    name,
    folder: o.folder ?? '',
    host: spec.host,
    port: spec.port,
    user: spec.user ?? localUser(),
    authMethod,
    ...(o.identity ? { keyPath: o.identity } : {}),
    ...(spec.path ? { remoteDir: spec.path } : {}),
  };
  const checked = siteInputSchema.safeParse(input);
  if (!checked.success)
    throw new SluiceError(
      'USAGE',
      `Invalid site: ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const site = store.save(checked.data);
  if (o.json) process.stdout.write(`${JSON.stringify({ type: 'site', ...site })}\n`);
  else process.stderr.write(`sluice: saved ${siteLine(site)}\n`);
  if (!/^[\p{L}\p{N}._-]+$/u.test(site.name))
    process.stderr.write(`sluice: note: "${site.name}" is not a host name, so sftp://${site.name}/… cannot name it\n`);
  return 0;
}

/** `sites import`: the preview, then (unless --dry-run) the candidates that are no duplicates, after a yes. */
async function importSites(
  store: SitesStore,
  format: ImportFormat,
  file: string | undefined,
  o: { dryRun?: boolean; yes?: boolean; into?: string; includeDuplicates?: boolean; json?: boolean },
): Promise<number> {
  const ctx = { store, defaultUser: localUser() };
  const req = { format, ...(file !== undefined ? { path: file } : {}) };
  const { preview } = await previewImport(ctx, req);
  const pick = preview.candidates.filter((c) => o.includeDuplicates || !c.duplicateOf).map((c) => c.index);
  for (const line of previewLines(preview, new Set(pick), o.json === true)) process.stdout.write(`${line}\n`);
  if (o.dryRun || pick.length === 0) {
    if (!o.json)
      process.stderr.write(
        `sluice: ${pick.length === 0 ? 'nothing to import' : `${plural(pick.length, 'site')} would be imported (dry run)`}\n`,
      );
    return 0;
  }
  if (!o.yes) {
    if (!isInteractive())
      throw new SluiceError('USAGE', 'add --yes to import without asking (or --dry-run to only look)');
    if (!(await terminalPrompter().confirm(`Import ${plural(pick.length, 'site')}?`))) return 1;
  }
  const result = await applyImport(
    ctx,
    { ...req, digest: preview.digest, pick, intoFolder: o.into },
    { skip: 'the command line keeps no passwords; import in the app to keep it, or type it when connecting' },
  );
  if (o.json) process.stdout.write(`${JSON.stringify({ type: 'imported', ...result })}\n`);
  else {
    for (const note of result.notes) process.stderr.write(`sluice: ${note}\n`);
    process.stderr.write(`sluice: imported ${plural(result.imported.length, 'site')}\n`);
  }
  return 0;
}

/** `sites export`: Sluice JSON on stdout, or into a file (0600). */
async function exportCommand(
  store: SitesStore,
  file: string | undefined,
  o: { withPasswords?: boolean; force?: boolean },
): Promise<number> {
  if (o.withPasswords) {
    throw new SluiceError(
      'USAGE',
      "the command line cannot read the app's passwords (the OS keychain encrypts them for the app): " +
        'export with passwords from the app (Sites → Export…)',
    );
  }
  const { doc } = await exportSites(store, {});
  if (file === undefined) {
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return 0;
  }
  const r = writeExport(file, doc, 0, o.force === true);
  process.stderr.write(`sluice: exported ${plural(r.sites, 'site')} to ${r.path}\n`);
  return 0;
}

function parseFormat(v: string): ImportFormat {
  const f = IMPORT_FORMATS.find((x) => x === v.toLowerCase());
  if (!f) throw new InvalidArgumentError(IMPORT_FORMATS.join(', '));
  return f;
}

/** Adds `sluice sites …` to the program. Each action stores its exit code as the root program's `exitCode` option. */
export function addSitesCommands(program: Command): void {
  const sites = program
    .command('sites')
    .description('saved sites, shared with the desktop app')
    .addHelpText('after', SITES_HELP);
  const done = async (
    json: boolean | undefined,
    action: (store: SitesStore, home: string) => number | Promise<number>,
  ): Promise<void> => {
    program.setOptionValue('exitCode', await withSites(json === true, action));
  };
  sites
    .command('list')
    .description('the saved sites, by folder and name')
    .option('--json', 'one JSON line per site')
    .action((o: { json?: boolean }) =>
      done(o.json, (store) => {
        const all = store.list().sites;
        const lines = o.json ? all.map((s) => JSON.stringify({ type: 'site', ...s })) : siteTable(all);
        process.stdout.write(lines.map((l) => `${l}\n`).join(''));
        if (!o.json && all.length === 0) process.stderr.write('sluice: no saved sites\n');
        return 0;
      }),
    );
  sites
    .command('add')
    .description('save a site: sluice sites add NAME sftp://[user@]host[:port][/remote folder]')
    .argument('<name>')
    .argument('<url>')
    .option('-i, --identity <file>', 'the private key file the site logs in with')
    .option('--password-auth', 'log in with a password (asked when connecting)')
    .option('--folder <folder>', 'the folder to keep it in, e.g. Work/Prod')
    .option('--json', 'the saved site as a JSON line')
    .action(
      (name: string, url: string, o: { identity?: string; folder?: string; passwordAuth?: boolean; json?: boolean }) =>
        done(o.json, (store) => addSite(store, name, url, o)),
    );
  sites
    .command('rm')
    .description('delete saved sites (by name or id)')
    .argument('<sites...>', 'names or ids')
    .action((refs: string[]) =>
      done(false, (store, home) => {
        const targets = refs.map((r) => findSite(store.list().sites, r));
        for (const s of targets) {
          store.delete(s.id);
          forgetStoredSecret(home, s.id);
          process.stderr.write(`sluice: deleted ${siteLine(s)}\n`);
        }
        return 0;
      }),
    );
  sites
    .command('import')
    .description('import sites from another program or a Sluice export (duplicates are left out)')
    .argument('<format>', IMPORT_FORMATS.join(', '), parseFormat)
    .argument('[file]', "the file (or PuTTY sessions folder); default: the format's usual place")
    .option('--dry-run', 'show what would be imported, import nothing')
    .option('-y, --yes', 'import without asking')
    .option('--into <folder>', 'put the imported sites under this folder')
    .option('--include-duplicates', 'import duplicates too')
    .option('--json', 'JSON lines: each candidate, then the result')
    .action(
      (
        format: ImportFormat,
        file: string | undefined,
        o: { dryRun?: boolean; yes?: boolean; into?: string; includeDuplicates?: boolean; json?: boolean },
      ) => done(o.json, (store) => importSites(store, format, file, o)),
    );
  sites
    .command('export')
    .description('the saved sites as Sluice JSON, on stdout or into FILE (no passwords)')
    .argument('[file]')
    .option('--force', 'replace FILE if it exists')
    .option('--with-passwords', 'refused here: the app exports passwords (Sites → Export…)')
    .action((file: string | undefined, o: { withPasswords?: boolean; force?: boolean }) =>
      done(false, (store) => exportCommand(store, file, o)),
    );
}
