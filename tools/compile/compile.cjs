#!/usr/bin/env node
// Compiles the TypeScript sources the apps, the sandbox and the launcher run from (apps/*/src, libs/*/src,
// tools/{dev,sandbox}/src; specs excluded) into plain CommonJS under dist/dev, keeping the tree's layout and
// rewriting the @rp/* aliases to relative paths. Only files newer than their output are compiled, and SWC is loaded
// only when one is: a process that finds everything up to date pays a few milliseconds of stat calls, not the
// ~80 MB of SWC and TypeScript that compiling on the fly at run time costs each process (ADR 003).
//   node tools/compile/compile.cjs          compile what changed
//   require('./compile.cjs').ensureCompiled()
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const OUT = path.join(ROOT, 'dist/dev');
const SOURCE_ROOTS = ['apps', 'libs', 'tools/dev/src', 'tools/sandbox/src'];
const SKIP = /\.(spec|int-spec|e2e-spec)\.ts$|\.d\.ts$/;

function sourcesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      // apps/<app> and libs/<lib> hold sources in src/; test fixtures and folders of other tools are not run.
      if (entry.name === 'node_modules' || entry.name === 'test' || entry.name === '__fixtures__') return [];
      return sourcesUnder(full);
    }
    return entry.name.endsWith('.ts') && !SKIP.test(entry.name) && full.includes(`${path.sep}src${path.sep}`)
      ? [full]
      : [];
  });
}

function outputOf(source) {
  return path.join(OUT, path.relative(ROOT, source)).replace(/\.ts$/, '.js');
}

function isStale(source) {
  try {
    return fs.statSync(outputOf(source)).mtimeMs < fs.statSync(source).mtimeMs;
  } catch {
    return true;
  }
}

/** The @rp/* aliases of tsconfig.base.json, for SWC to rewrite into relative requires. */
function aliases() {
  const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.base.json'), 'utf8'));
  return compilerOptions.paths;
}

function swcOptions(source) {
  return {
    filename: source,
    sourceMaps: true,
    sourceFileName: path.relative(path.dirname(outputOf(source)), source),
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
      baseUrl: ROOT,
      paths: aliases(),
    },
    module: { type: 'commonjs' },
  };
}

/** A barrel: a file of `export * from '...'` lines and comments only (a library's `index.ts`). */
function isBarrel(text) {
  const statements = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
  return statements.length > 0 && statements.every((statement) => /^export \* from ['"][^'"]+['"]$/.test(statement));
}

/**
 * Appended to a compiled barrel (ADR 038). SWC re-exports each name with a getter defined by
 * `Object.defineProperty`; past about twenty such names V8 keeps the object in dictionary mode, so every
 * `platform.name` read in the apps is a dictionary lookup, a getter call and a megamorphic keyed load. Once the
 * barrel has run, its names no longer change (the sources export no `let`, a test holds it), so the barrel's
 * exports become a plain object of the same values: a fast object whose reads the JIT inlines. A module that
 * required the barrel while it was loading (a cycle) keeps the getters, which still work; a name not yet
 * initialised at the end (a cycle again) keeps them all.
 */
const FLATTEN_BARREL = `
try {
  module.exports = Object.defineProperty({ ...module.exports }, '__esModule', { value: true });
} catch {
  // A name read before its module finished (a cycle): the getters stay.
}`;

/** Compiles every stale source; returns how many. Writes are atomic, so two compilers at once do no harm. */
function ensureCompiled() {
  const stale = SOURCE_ROOTS.flatMap((root) => sourcesUnder(path.join(ROOT, root))).filter(isStale);
  if (stale.length === 0) return 0;
  const swc = require('@swc/core');
  for (const source of stale) {
    const { code: compiled, map } = swc.transformFileSync(source, swcOptions(source));
    const code = isBarrel(fs.readFileSync(source, 'utf8')) ? compiled + FLATTEN_BARREL : compiled;
    const target = outputOf(source);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const suffix = `.${process.pid}.tmp`;
    fs.writeFileSync(`${target}.map${suffix}`, map);
    fs.writeFileSync(`${target}${suffix}`, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    fs.renameSync(`${target}.map${suffix}`, `${target}.map`);
    fs.renameSync(`${target}${suffix}`, target);
  }
  return stale.length;
}

/** The compiled entry point of a source file (`apps/gateway/src/main.ts` -> `dist/dev/apps/gateway/src/main.js`). */
function compiledPath(source) {
  return outputOf(path.join(ROOT, source));
}

module.exports = { ensureCompiled, compiledPath, isBarrel, ROOT };

if (require.main === module) {
  const started = Date.now();
  const count = ensureCompiled();
  process.stdout.write(`compiled ${count} file${count === 1 ? '' : 's'} into dist/dev in ${Date.now() - started} ms\n`);
}
