/**
 * Names other platforms cannot hold (#24 item 12), with the platform injected (TransferRequest.namePlatform): Windows'
 * forbidden characters, names equal but for case (Windows, macOS), NFC and NFD (macOS). The rule tested both as
 * FolderNames and through a real `get -r` from the scripted server (whose remote paths are local paths on ext4, where
 * every one of these names can exist side by side).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FolderNames, localNameRules, nameRulesFor, probeCaseInsensitive, type NamePlatform } from './localNames';
import { runTransfer } from './run';
import {
  makeTempDir,
  openTrusting,
  removeDir,
  startScriptedServer,
  within,
  type ScriptedServer,
} from '../test/helpers';

const NFC = 'caf\u00e9.txt';
const NFD = 'cafe\u0301.txt';
const WINDOWS_ONLY = ['12:00.log', 'what?.txt', 'star*.txt', 'say "hi".txt', '<tag>.txt', 'pipe|.txt'];

describe('FolderNames: one rule per platform', () => {
  test('Windows refuses : * ? " < > |; Linux and macOS keep them', () => {
    for (const name of WINDOWS_ONLY) {
      assert.match(new FolderNames(nameRulesFor('win32')).refusal(name) ?? '', /Windows/, name);
      assert.equal(new FolderNames(nameRulesFor('linux')).refusal(name), null, name);
      assert.equal(new FolderNames(nameRulesFor('darwin')).refusal(name), null, name);
    }
  });

  test('case twins: the first is taken, a later one refused naming it (Windows, macOS, not Linux)', () => {
    for (const platform of ['win32', 'darwin'] as const) {
      const names = new FolderNames(nameRulesFor(platform));
      assert.equal(names.refusal('Readme.txt'), null);
      assert.equal(names.refusal('Readme.txt'), null, 'the same name again is not a collision');
      const where = platform === 'win32' ? 'Windows' : 'macOS';
      const text = `it differs from "Readme.txt" only in case: on ${where} it is the same file, `;
      assert.equal(names.refusal('README.TXT'), `${text}so only the first listed is copied`);
    }
    const linux = new FolderNames(nameRulesFor('linux'));
    assert.equal(linux.refusal('Readme.txt'), null);
    assert.equal(linux.refusal('README.TXT'), null);
  });

  test('NFC and NFD spellings are one file on macOS only', () => {
    const mac = new FolderNames(nameRulesFor('darwin'));
    assert.equal(mac.refusal(NFD), null);
    assert.match(mac.refusal(NFC) ?? '', /only in Unicode normalization \(NFC\/NFD\): on macOS it is the same file/);
    assert.match(mac.refusal('CAF\u00c9.TXT') ?? '', /only in case/, 'case and normalization together');
    for (const platform of ['win32', 'linux'] as const) {
      const names = new FolderNames(nameRulesFor(platform));
      assert.equal(names.refusal(NFD), null);
      assert.equal(names.refusal(NFC), null, `${platform} keeps both spellings`);
    }
  });

  test('the universal refusals stand on every platform', () => {
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      const names = new FolderNames(nameRulesFor(platform));
      assert.match(names.refusal('CON') ?? '', /reserved/);
      assert.match(names.refusal('trailing.') ?? '', /dot or a space/);
      assert.match(names.refusal('../x') ?? '', /separator/);
    }
  });
});

describe('a get -r with the platform injected (scripted server)', () => {
  let local: string;
  let server: ScriptedServer;
  before(async () => {
    local = await makeTempDir('sluice-localnames-');
    server = await startScriptedServer();
  });
  after(async () => {
    await server?.stop();
    if (local) await removeDir(local);
  });

  /** A remote tree holding every kind of name at once; returns its path. */
  function remoteTree(name: string): string {
    const src = path.join(server.root, name);
    fs.mkdirSync(path.join(src, 'docs'), { recursive: true });
    fs.mkdirSync(path.join(src, 'Docs'), { recursive: true });
    fs.writeFileSync(path.join(src, 'docs', 'lower.txt'), 'lower');
    fs.writeFileSync(path.join(src, 'Docs', 'upper.txt'), 'upper');
    const files = [
      ['Readme.txt', 'mixed'],
      ['README.TXT', 'upper'],
      [NFC, 'nfc'],
      [NFD, 'nfd'],
      ['plain.txt', 'x'],
    ];
    for (const [n, body] of files) fs.writeFileSync(path.join(src, n), body);
    for (const n of WINDOWS_ONLY) fs.writeFileSync(path.join(src, n), n);
    return src;
  }

  async function get(platform: NamePlatform, name: string) {
    const src = remoteTree(name);
    const dest = path.join(local, name);
    const s = await openTrusting(server, local, { connections: 1, channels: 1 });
    try {
      const req = { id: name, direction: 'get', recursive: true, sources: [src], dest, namePlatform: platform };
      const report = await within('get', 30_000, runTransfer(s, { ...req, direction: 'get' }));
      const refused = report.failed.filter((f) => f.code === 'UNSAFE_NAME').map((f) => path.relative(src, f.path));
      refused.sort();
      return { report, dest, refused };
    } finally {
      await s.close();
    }
  }

  /** Which of two colliding names was copied (exactly one must be), and that the other one's refusal names it. */
  function oneOf(dest: string, refused: string[], a: string, b: string): void {
    const copied = fs.readdirSync(dest).filter((n) => n === a || n === b);
    assert.equal(copied.length, 1, `exactly one of ${a} and ${b} is copied: ${JSON.stringify(copied)}`);
    assert.ok(refused.includes(copied[0] === a ? b : a), `the other is refused: ${JSON.stringify(refused)}`);
  }

  test('Windows: its forbidden characters and case twins refused, the rest copied', { timeout: 60_000 }, async () => {
    const { report, dest, refused } = await get('win32', 'win');
    assert.equal(refused.length, WINDOWS_ONLY.length + 2, JSON.stringify(report.failed, null, 1));
    for (const n of WINDOWS_ONLY) assert.ok(refused.includes(n), n);
    oneOf(dest, refused, 'Readme.txt', 'README.TXT');
    oneOf(dest, refused, 'docs', 'Docs');
    assert.ok(fs.existsSync(path.join(dest, NFC)) && fs.existsSync(path.join(dest, NFD)), 'NTFS keeps both spellings');
    assert.equal(fs.readFileSync(path.join(dest, 'plain.txt'), 'utf8'), 'x');
    const readme = fs.readdirSync(dest).find((n) => n.toLowerCase() === 'readme.txt') ?? '';
    assert.equal(fs.readFileSync(path.join(dest, readme), 'utf8'), readme === 'README.TXT' ? 'upper' : 'mixed');
    const message = report.failed.find((f) => /\/(README\.TXT|Readme\.txt)$/.test(f.path))?.message ?? '';
    assert.match(message, /^refused remote name "(README|Readme)\.(TXT|txt)" in .*: it differs from "(Readme|README)/);
    assert.match(message, / only in case: on Windows it is the same file, so only the first listed is copied$/);
  });

  test("macOS: case twins and NFC/NFD twins refused, Windows' characters copied", { timeout: 60_000 }, async () => {
    const { dest, refused } = await get('darwin', 'mac');
    assert.equal(refused.length, 3, JSON.stringify(refused));
    oneOf(dest, refused, 'Readme.txt', 'README.TXT');
    oneOf(dest, refused, 'docs', 'Docs');
    oneOf(dest, refused, NFC, NFD);
    for (const n of WINDOWS_ONLY) assert.equal(fs.readFileSync(path.join(dest, n), 'utf8'), n);
  });

  test('Linux: every name is copied as it is', { timeout: 60_000 }, async () => {
    const { report, dest } = await get('linux', 'lin');
    assert.deepEqual(report.failed, []);
    assert.equal(fs.readdirSync(dest).length, 5 + 2 + WINDOWS_ONLY.length);
  });

  test('the probe finds this file system case-sensitive and leaves nothing behind', async () => {
    const dir = path.join(local, 'probe');
    fs.mkdirSync(dir);
    assert.equal(await probeCaseInsensitive(path.join(dir, 'not', 'yet')), false, 'probed in the nearest existing one');
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.deepEqual(await localNameRules(dir, true), nameRulesFor('linux'), 'this machine: the probe decides');
    assert.equal(
      (await localNameRules(dir, true, 'win32')).caseInsensitive,
      true,
      'an injected Windows keeps its rule',
    );
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});
