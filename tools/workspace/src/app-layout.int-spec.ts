/**
 * The apps' folder layout: shapes that should not come back (issue 21 §5). A source folder named like build output
 * (`build`, `dist`, `out`) is skipped by tools that ignore such folders (search, coverage, watchers): name a folder
 * for what it holds.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const OUTPUT_NAMES = new Set(['build', 'dist', 'out']);

/** Every folder under apps/<app>/src that holds a tracked file. */
function sourceFolders(): string[] {
  const files = execFileSync('git', ['ls-files', 'apps'], { cwd: root, encoding: 'utf8' }).split('\n');
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    if (parts[2] !== 'src') continue;
    for (let depth = 4; depth < parts.length; depth += 1) folders.add(parts.slice(0, depth).join('/'));
  }
  return [...folders];
}

describe('app layout', () => {
  it('has source folders under apps/*/src', () => {
    expect(sourceFolders()).toContain('apps/txb/src/building');
  });

  it('names no source folder like build output', () => {
    const named = sourceFolders().filter((folder) => OUTPUT_NAMES.has(folder.split('/').at(-1) ?? ''));
    expect(named).toEqual([]);
  });
});
