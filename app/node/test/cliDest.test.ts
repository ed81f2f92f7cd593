/**
 * What the CLI writes where, against a private sshd (issue #24 items 8, 9, 10): symlinks on either side follow one
 * policy (-L to follow), a destination is never written through a symlink inside it, a read-only target is refused
 * unless --force, and the usage and output edges (an empty DEST or source, `-v`'s "skipped" said once).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseFlags, describeRun, runCli, startTestServer, trustedServerHooks, urlOf, type SshServer } from './helpers';

let server: SshServer;
let work: string;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startTestServer, 'sluice-cli-dest-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

/** A fresh pair of folders for one case: `local` and `remote` (inside the server's root). */
function freshCase(): { local: string; remote: string } {
  const n = ++caseNo;
  const local = path.join(work, `case-${n}`);
  const remote = path.join(server.root, `case-${n}`);
  fs.mkdirSync(local);
  fs.mkdirSync(remote);
  return { local, remote };
}

const put = (args: string[]) => runCli(['put', ...baseFlags(server), ...args], { knownHosts });
const get = (args: string[]) => runCli(['get', ...baseFlags(server), ...args], { knownHosts });
const url = (p: string) => urlOf(server, p);
const linesMatching = (text: string, re: RegExp) => text.split('\n').filter((l) => re.test(l));

describe('-v output', () => {
  test('a symlink the walk skips is said once under -v, as it is without -v', async () => {
    const { local, remote } = freshCase();
    fs.mkdirSync(path.join(local, 'tree'));
    fs.writeFileSync(path.join(local, 'tree', 'plain.txt'), 'plain');
    fs.writeFileSync(path.join(local, 'outside.txt'), 'outside');
    fs.symlinkSync(path.join(local, 'outside.txt'), path.join(local, 'tree', 'link.txt'));
    for (const verbose of [[], ['-v']]) {
      const r = await put(['-r', ...verbose, path.join(local, 'tree'), url(`${remote}/`)]);
      assert.equal(r.code, 0, describeRun(r));
      assert.equal(linesMatching(r.stderr, /skipped .*link\.txt/).length, 1, describeRun(r));
    }
  });
});

describe('empty operands', () => {
  test('an empty DEST of get and an empty SOURCE of put are usage errors (exit 2), nothing copied', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(remote, 'a.txt'), 'alpha');
    const r = await runCli(['get', ...baseFlags(server), url(`${remote}/a.txt`), ''], { knownHosts, cwd: local });
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /get needs a local DEST: it is empty \(use \. for the current folder\)/);
    assert.deepEqual(fs.readdirSync(local), [], 'nothing lands in the current folder');
    const p = await runCli(['put', ...baseFlags(server), '', url(`${remote}/`)], { knownHosts, cwd: local });
    assert.equal(p.code, 2, describeRun(p));
    assert.match(p.stderr, /put needs a local SOURCE: one is empty/);
    assert.deepEqual(fs.readdirSync(remote), ['a.txt']);
  });
});

describe('one symlink policy both ways (-L follows)', () => {
  /** `root/tree` with a plain file, a link inside the tree, a link to a file outside it and a link to a folder. */
  function treeWithLinks(root: string): string {
    const tree = path.join(root, 'tree');
    fs.mkdirSync(path.join(root, 'elsewhere'), { recursive: true });
    fs.writeFileSync(path.join(root, 'elsewhere', 'secret.txt'), 'outside the tree');
    fs.mkdirSync(tree);
    fs.writeFileSync(path.join(tree, 'plain.txt'), 'plain');
    fs.symlinkSync('plain.txt', path.join(tree, 'inner-link.txt'));
    fs.symlinkSync(path.join(root, 'elsewhere', 'secret.txt'), path.join(tree, 'out-link.txt'));
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(tree, 'dir-link'));
    return tree;
  }

  test('get -r and put -r copy a link inside the tree and skip, naming them, a link out of it and a folder link', async () => {
    const { local, remote } = freshCase();
    fs.mkdirSync(path.join(local, 'got'));
    fs.mkdirSync(path.join(remote, 'got'));
    const g = await get(['-r', url(treeWithLinks(remote)), path.join(local, 'got')]);
    assert.equal(g.code, 0, describeRun(g));
    const p = await put(['-r', treeWithLinks(local), url(`${remote}/got`)]);
    assert.equal(p.code, 0, describeRun(p));
    for (const [r, copied] of [
      [g, path.join(local, 'got', 'tree')],
      [p, path.join(remote, 'got', 'tree')],
    ] as const) {
      assert.deepEqual(fs.readdirSync(copied).sort(), ['inner-link.txt', 'plain.txt'], describeRun(r));
      assert.equal(fs.readFileSync(path.join(copied, 'inner-link.txt'), 'utf8'), 'plain');
      assert.match(
        r.stderr,
        /skipped \S*out-link\.txt: a symlink to \S*secret\.txt, outside the folder being copied \(use -L to follow\)/,
      );
      assert.match(r.stderr, /skipped \S*dir-link: a folder symlink \(use -L to follow\)/);
    }
  });

  test('get -r -L follows every link, as put -r -L does', async () => {
    const { local, remote } = freshCase();
    treeWithLinks(remote);
    const g = await get(['-r', '-L', url(`${remote}/tree`), `${local}/`]);
    assert.equal(g.code, 0, describeRun(g));
    const copied = path.join(local, 'tree');
    assert.deepEqual(fs.readdirSync(copied).sort(), ['dir-link', 'inner-link.txt', 'out-link.txt', 'plain.txt']);
    assert.equal(fs.readFileSync(path.join(copied, 'out-link.txt'), 'utf8'), 'outside the tree');
    assert.equal(fs.readFileSync(path.join(copied, 'dir-link', 'secret.txt'), 'utf8'), 'outside the tree');
    assert.equal(fs.lstatSync(path.join(copied, 'out-link.txt')).isFile(), true, 'saved as a regular file');
  });
});

describe('the destination is not written through a symlink, nor over a read-only file', () => {
  test('get -r fails a folder that is a symlink inside the destination, names it, and writes nothing through it', async () => {
    const { local, remote } = freshCase();
    fs.mkdirSync(path.join(remote, 'tree', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(remote, 'tree', 'top.txt'), 'top');
    fs.writeFileSync(path.join(remote, 'tree', 'sub', 'file.txt'), 'sub file');
    const elsewhere = path.join(local, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.join(local, 'dest', 'tree'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(local, 'dest', 'tree', 'sub'));
    const r = await get(['-r', url(`${remote}/tree`), path.join(local, 'dest')]);
    assert.equal(r.code, 6, describeRun(r));
    assert.match(
      r.stderr,
      /tree\/sub: folder not written, it is a symlink to \S*elsewhere inside the destination \(-K writes into it\)/,
    );
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing written where the link points');
    assert.equal(fs.readFileSync(path.join(local, 'dest', 'tree', 'top.txt'), 'utf8'), 'top', 'the rest arrives');
    const k = await get(['-r', '-K', url(`${remote}/tree`), path.join(local, 'dest')]);
    assert.equal(k.code, 0, describeRun(k));
    assert.equal(
      fs.readFileSync(path.join(elsewhere, 'file.txt'), 'utf8'),
      'sub file',
      '-K writes into the linked folder',
    );
  });

  test('put -r fails a folder that is a symlink inside the remote destination, as get does; -K writes into it', async () => {
    const { local, remote } = freshCase();
    fs.mkdirSync(path.join(local, 'tree', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(local, 'tree', 'top.txt'), 'top');
    fs.writeFileSync(path.join(local, 'tree', 'sub', 'file.txt'), 'sub file');
    const elsewhere = path.join(remote, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.join(remote, 'dest', 'tree'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(remote, 'dest', 'tree', 'sub'));
    const r = await put(['-r', path.join(local, 'tree'), url(`${remote}/dest`)]);
    assert.equal(r.code, 1, describeRun(r));
    assert.match(
      r.stderr,
      /tree\/sub: folder not written, it is a symlink to \S*elsewhere inside the destination \(-K writes into it\)/,
    );
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing written where the link points');
    assert.equal(fs.readFileSync(path.join(remote, 'dest', 'tree', 'top.txt'), 'utf8'), 'top', 'the rest arrives');
    const k = await put(['-r', '-K', path.join(local, 'tree'), url(`${remote}/dest`)]);
    assert.equal(k.code, 0, describeRun(k));
    assert.equal(
      fs.readFileSync(path.join(elsewhere, 'file.txt'), 'utf8'),
      'sub file',
      '-K writes into the linked folder',
    );
  });

  test('DEST itself may be a symlink: the user named it', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(remote, 'a.txt'), 'alpha');
    fs.mkdirSync(path.join(local, 'real'));
    fs.symlinkSync(path.join(local, 'real'), path.join(local, 'named'));
    const r = await get(['-r', url(`${remote}`), path.join(local, 'named')]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(local, 'real', path.basename(remote), 'a.txt'), 'utf8'), 'alpha');
  });

  test('get refuses to replace a read-only local target (exit 6, kept as it was); -f replaces it', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(remote, 'ro.txt'), 'new content');
    const target = path.join(local, 'ro.txt');
    fs.writeFileSync(target, 'old');
    fs.chmodSync(target, 0o444);
    const r = await get([url(`${remote}/ro.txt`), `${local}/`]);
    assert.equal(r.code, 6, describeRun(r));
    assert.match(r.stderr, /ro\.txt: the target is read-only, not replaced \(-f replaces it, as cp -f does\)/);
    assert.equal(fs.readFileSync(target, 'utf8'), 'old');
    assert.equal(fs.statSync(target).mode & 0o777, 0o444);
    const f = await get(['-f', url(`${remote}/ro.txt`), `${local}/`]);
    assert.equal(f.code, 0, describeRun(f));
    assert.equal(fs.readFileSync(target, 'utf8'), 'new content');
  });
});
