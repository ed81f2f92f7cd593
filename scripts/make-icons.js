#!/usr/bin/env node
'use strict';
/**
 * `npm run icons`: renders build/icon.svg with Chromium (Playwright; SLUICE_CHROMIUM or the platform's browser, else
 * Playwright's own) at each size the platforms use, and writes what electron-builder picks up from build/ as it is,
 * with no conversion step of its own (that step downloads a toolset at packaging time):
 *   build/icons/NxN.png  Linux (AppImage, deb: hicolor NxN), 16 to 1024
 *   build/icon.png       1024 px, the fallback
 *   build/icon.ico       Windows: 16, 24, 32, 48, 64, 128, 256 (PNG-compressed entries, Windows Vista and later)
 *   build/icon.icns      macOS: icp4 16, icp5 32, icp6 64, ic07 128, ic08 256, ic09 512, ic10 1024 (512@2x),
 *                        ic11 32 (16@2x), ic12 64 (32@2x), ic13 256 (128@2x), ic14 512 (256@2x); PNG payloads
 * The outputs are committed; run it again after changing the SVG. scripts/test/buildResources.test.ts checks them.
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const BUILD = path.join(ROOT, 'build');
const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
/** ICNS element types with PNG payloads and their pixel size (Apple's Icon Services types, macOS 10.7+). */
const ICNS_TYPES = [
  ['icp4', 16],
  ['icp5', 32],
  ['icp6', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];

/** An ICO file of PNG images: ICONDIR, one ICONDIRENTRY each (width/height 0 means 256), then the PNGs. */
function icoFrom(pngs) {
  const header = Buffer.alloc(6 + 16 * pngs.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // 1: icon
  header.writeUInt16LE(pngs.length, 4);
  let offset = header.length;
  pngs.forEach(({ size, png }, i) => {
    const e = 6 + 16 * i;
    header.writeUInt8(size >= 256 ? 0 : size, e);
    header.writeUInt8(size >= 256 ? 0 : size, e + 1);
    header.writeUInt16LE(1, e + 4); // colour planes
    header.writeUInt16LE(32, e + 6); // bits per pixel
    header.writeUInt32LE(png.length, e + 8);
    header.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...pngs.map((p) => p.png)]);
}

/** An ICNS file: 'icns' + total length, then elements of 4-byte type + length (header included) + PNG data. */
function icnsFrom(elements) {
  const parts = elements.map(({ type, png }) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

/** The Chromium to render with: SLUICE_CHROMIUM, else the platform's usual install when present, else Playwright's. */
function chromiumPath() {
  if (process.env.SLUICE_CHROMIUM) return process.env.SLUICE_CHROMIUM;
  const candidates =
    {
      linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser'],
      darwin: ['/Applications/Chromium.app/Contents/MacOS/Chromium'],
    }[process.platform] ?? [];
  return candidates.find((p) => fs.existsSync(p));
}

/** PNGs of `svg` at each size, rendered edge to edge with a transparent background. */
async function render(svg, sizes) {
  const { chromium } = require('@playwright/test');
  const browser = await chromium.launch({ executablePath: chromiumPath() });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    const out = new Map();
    for (const size of sizes) {
      await page.setViewportSize({ width: size, height: size });
      const html =
        '<html><body style="margin:0;background:transparent">' +
        `<img src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" width="${size}" height="${size}"` +
        ' style="display:block"></body></html>';
      await page.setContent(html);
      await page.locator('img').evaluate((img) => img.decode());
      out.set(size, await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    }
    return out;
  } finally {
    await browser.close();
  }
}

async function main() {
  const svg = fs.readFileSync(path.join(BUILD, 'icon.svg'), 'utf8');
  const sizes = [...new Set([...LINUX_SIZES, ...ICO_SIZES, ...ICNS_TYPES.map(([, s]) => s)])].sort((a, b) => a - b);
  const png = await render(svg, sizes);
  fs.rmSync(path.join(BUILD, 'icons'), { recursive: true, force: true });
  fs.mkdirSync(path.join(BUILD, 'icons'), { recursive: true });
  for (const s of LINUX_SIZES) fs.writeFileSync(path.join(BUILD, 'icons', `${s}x${s}.png`), png.get(s));
  fs.writeFileSync(path.join(BUILD, 'icon.png'), png.get(1024));
  fs.writeFileSync(path.join(BUILD, 'icon.ico'), icoFrom(ICO_SIZES.map((size) => ({ size, png: png.get(size) }))));
  fs.writeFileSync(path.join(BUILD, 'icon.icns'), icnsFrom(ICNS_TYPES.map(([type, s]) => ({ type, png: png.get(s) }))));
  console.log(`make-icons: build/icons (${LINUX_SIZES.length} PNGs), build/icon.png, build/icon.ico, build/icon.icns`);
}

module.exports = { icoFrom, icnsFrom, LINUX_SIZES, ICO_SIZES, ICNS_TYPES };

if (require.main === module) {
  main().catch((e) => {
    console.error(`make-icons: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
