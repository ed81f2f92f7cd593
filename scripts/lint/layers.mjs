// The layer rule of eslint.config.mjs (docs/ARCHITECTURE.md "Layers"), after vscode's code-layering rule: every
// linted file belongs to a layer, and each layer lists what it may import: other layers (repo folders or files) and
// packages. Anything not listed is refused, type-only imports included (`import type`, `export type … from`,
// `import('…').T`), with no exception, and so is a file in no layer.
import path from 'node:path';

/** The layer of a repo-relative path without extension: the longest layer name that is it or a folder above it. */
export function layerOf(rel, names) {
  let best;
  for (const name of names) {
    if ((rel === name || rel.startsWith(`${name}/`)) && (!best || name.length > best.length)) best = name;
  }
  return best;
}

/** True when `spec` (`ssh2`, `ssh2/lib/x`, `node:fs`) is one of `patterns` (`ssh2`, `ssh2/lib/*`, `node:*`). */
export function packageAllowed(spec, patterns) {
  return patterns.some((p) => (p.endsWith('*') ? spec.startsWith(p.slice(0, -1)) : spec === p));
}

const stripExt = (p) => p.replace(/\.(tsx?|mjs|cjs|js|json)$/, '');

/** Repo-relative, extension-less, '/'-separated. */
function repoPath(root, abs) {
  return stripExt(path.relative(root, abs).split(path.sep).join('/'));
}

/** Import sources of a module, each with whether only types come through it. */
function importListener(check) {
  const typeOnlyImport = (n) =>
    n.importKind === 'type' ||
    (n.specifiers.length > 0 && n.specifiers.every((s) => s.type === 'ImportSpecifier' && s.importKind === 'type'));
  const literal = (n) => (n && n.type === 'Literal' && typeof n.value === 'string' ? n : undefined);
  return {
    ImportDeclaration: (n) => check(n.source, typeOnlyImport(n)),
    ExportNamedDeclaration: (n) =>
      n.source &&
      check(
        n.source,
        n.exportKind === 'type' || (n.specifiers.length > 0 && n.specifiers.every((s) => s.exportKind === 'type')),
      ),
    ExportAllDeclaration: (n) => check(n.source, n.exportKind === 'type'),
    ImportExpression: (n) => literal(n.source) && check(n.source, false),
    TSImportType: (n) => {
      const lit = n.argument?.type === 'TSLiteralType' ? n.argument.literal : n.argument;
      if (literal(lit)) check(lit, true);
    },
    TSExternalModuleReference: (n) => literal(n.expression) && check(n.expression, false),
    CallExpression: (n) => {
      const isRequire = n.callee.type === 'Identifier' && n.callee.name === 'require';
      if (isRequire && literal(n.arguments[0])) check(n.arguments[0], false);
    },
  };
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Each layer imports only what its allow-list names (docs/ARCHITECTURE.md).' },
    schema: [{ type: 'object' }],
  },
  create(context) {
    const { root, layers } = context.options[0];
    const names = Object.keys(layers);
    const file = repoPath(root, context.filename);
    const own = layerOf(file, names);
    if (!own) {
      return {
        Program: (n) =>
          context.report({
            node: n,
            message:
              `${file} is in no layer: give its folder a row in ` + 'eslint.config.mjs LAYERS and docs/ARCHITECTURE.md',
          }),
      };
    }
    const { imports = [], packages = [] } = layers[own];
    const list = (xs) => (xs.length ? xs.join(', ') : 'nothing');
    return importListener((source, typeOnly) => {
      const spec = source.value;
      if (!spec.startsWith('.') && !path.isAbsolute(spec)) {
        if (!packageAllowed(spec, packages)) {
          context.report({
            node: source,
            message:
              `${own} may not import the package '${spec}' (its packages: ` +
              `${list(packages)}; docs/ARCHITECTURE.md)`,
          });
        }
        return;
      }
      const target = repoPath(root, path.resolve(path.dirname(context.filename), spec));
      if (layerOf(target, names) === own || layerOf(target, imports)) return;
      const what = typeOnly ? `${target} (not even its types)` : target;
      context.report({
        node: source,
        message: `${own} may not import ${what} (its allow-list: ${list(imports)}; ` + 'docs/ARCHITECTURE.md)',
      });
    });
  },
};

export default { rules: { layers: rule } };
