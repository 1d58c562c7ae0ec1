import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { WORKSPACE_ROOT } from './app-process';

const compiler = require(join(WORKSPACE_ROOT, 'tools/compile/compile.cjs')) as {
  ensureCompiled(): number;
  compiledPath(source: string): string;
  isBarrel(text: string): boolean;
};

/** The libraries' entry points the apps import (`@rp/*`), each a file of `export * from` lines. */
const BARRELS = [
  'libs/platform/src/index.ts',
  'libs/platform/src/core.ts',
  'libs/contracts/src/index.ts',
  'libs/ledger/src/index.ts',
  'libs/persistence/src/index.ts',
  'libs/persistence/src/store.ts',
  'tools/dev/src/index.ts',
];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(full);
    return entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$|\.d\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** ADR 038: a compiled barrel's exports are a fast V8 object of the same values, not a dictionary of getters. */
describe('compiled barrels', () => {
  beforeAll(() => compiler.ensureCompiled());

  it('tells a barrel (re-exports and comments only) from a module with code of its own', () => {
    expect(compiler.isBarrel('// entry\nexport * from \'./a\';\n/* more */\nexport * from "./b";\n')).toBe(true);
    expect(compiler.isBarrel("export * from './a';\nexport const x = 1;\n")).toBe(false);
    expect(compiler.isBarrel("export { a } from './a';\n")).toBe(false);
    expect(compiler.isBarrel('// nothing\n')).toBe(false);
    for (const barrel of BARRELS)
      expect(compiler.isBarrel(readFileSync(join(WORKSPACE_ROOT, barrel), 'utf8'))).toBe(true);
  });

  it('are fast objects holding the very values of the modules they re-export', () => {
    const script = `
      const results = {};
      for (const [name, file] of Object.entries(${JSON.stringify(
        Object.fromEntries(BARRELS.map((barrel) => [barrel, compiler.compiledPath(barrel)])),
      )})) {
        const exported = require(file);
        const source = require('node:fs').readFileSync(file, 'utf8');
        const leaves = [...source.matchAll(/_export_star\\(require\\("([^"]+)"\\)/g)].map((m) => require(require('node:path').resolve(require('node:path').dirname(file), m[1])));
        const same = leaves.every((leaf) => Object.keys(leaf).every((key) => key === 'default' || exported[key] === leaf[key]));
        results[name] = { fast: %HasFastProperties(exported), esModule: exported.__esModule === true, names: Object.keys(exported).length, same };
      }
      process.stdout.write(JSON.stringify(results));`;
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const results = JSON.parse(run.stdout) as Record<
      string,
      { fast: boolean; esModule: boolean; names: number; same: boolean }
    >;
    for (const barrel of BARRELS) {
      expect({ barrel, ...results[barrel] }).toEqual({
        barrel,
        fast: true,
        esModule: true,
        names: expect.any(Number),
        same: true,
      });
    }
    // The platform's barrel is well past the twenty-odd getters after which V8 gives up fast properties.
    expect(results['libs/platform/src/index.ts'].names).toBeGreaterThan(100);
  });

  it('stay right because no module exports a binding it may reassign (export let / var)', () => {
    const roots = ['apps', 'libs', 'tools/dev/src', 'tools/sandbox/src'].map((root) => join(WORKSPACE_ROOT, root));
    const reassignable = roots
      .flatMap(sourcesUnder)
      .filter((file) => /^export (let|var) /m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(WORKSPACE_ROOT, file));
    expect(reassignable).toEqual([]);
  });
});
