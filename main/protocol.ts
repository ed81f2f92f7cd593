/**
 * The `app://` scheme: serves the built renderer (renderer/dist) with path-traversal checks and a strict
 * Content-Security-Policy, so the UI never runs from `file://` (Electron security checklist item 18).
 */
import { protocol } from 'electron';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const APP_SCHEME = 'app';
export const APP_HOST = 'sluice';
/** Origin of every page we load: `app://sluice`. */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/**
 * CSP of every response: scripts, styles and fonts from the app only, images also as data: URLs, no
 * network (connect-src 'self' only), no plugins, no framing, no inline code.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** Must run before `app` is ready: `app://` behaves like https (standard, secure, fetch allowed). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/**
 * Maps an `app://sluice/...` URL to a file under `root`, or an HTTP status when it must not be served.
 * `/` maps to index.html. Rejects other hosts, encoded or literal `..` escapes, NUL bytes and backslashes.
 */
export function resolveAppPath(url: string, root: string): { file: string } | { status: 400 | 403 | 404 } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { status: 400 };
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return { status: 403 };
  let rel: string;
  try {
    rel = decodeURIComponent(parsed.pathname);
  } catch {
    return { status: 400 };
  }
  if (rel.includes('\0') || rel.includes('\\')) return { status: 400 };
  if (rel === '/' || rel === '') rel = '/index.html';
  const base = path.resolve(root);
  const file = path.resolve(base, `.${rel}`);
  const inside = path.relative(base, file);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return { status: 403 };
  return { file };
}

/** Answers one `app://` request from `root` (GET/HEAD only); every response carries the CSP. */
export async function serveAppRequest(request: { url: string; method: string }, root: string): Promise<Response> {
  const headers = { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' };
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers });
  const target = resolveAppPath(request.url, root);
  if ('status' in target) return new Response(null, { status: target.status, headers });
  try {
    // Symlinks inside root must not lead outside it either.
    const real = await fs.promises.realpath(target.file);
    const realRoot = await fs.promises.realpath(root);
    const inside = path.relative(realRoot, real);
    if (inside.startsWith('..') || path.isAbsolute(inside)) return new Response(null, { status: 403, headers });
    const body = await fs.promises.readFile(real);
    const type = MIME[path.extname(real).toLowerCase()] ?? 'application/octet-stream';
    return new Response(request.method === 'HEAD' ? null : body, {
      status: 200,
      headers: { ...headers, 'Content-Type': type },
    });
  } catch {
    return new Response(null, { status: 404, headers });
  }
}

/** Installs the `app://` handler (after `app` is ready). */
export function handleAppProtocol(root: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(request, root));
}
