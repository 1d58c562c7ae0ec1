import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm test` runs the `test`, `integration` and `e2e` targets of every project. A project whose integration or
 * end-to-end specs have no target to run them would pass CI without running them: this names every such project.
 */
const ROOT = path.resolve(__dirname, '../../..');

function projects(): { root: string; targets: string[] }[] {
  return ['apps', 'libs', 'tools'].flatMap((group) =>
    readdirSync(path.join(ROOT, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(ROOT, group, entry.name, 'project.json')))
      .map((entry) => {
        const root = path.join(group, entry.name);
        const project = JSON.parse(readFileSync(path.join(ROOT, root, 'project.json'), 'utf8'));
        return { root, targets: Object.keys(project.targets ?? {}) };
      }),
  );
}

function specFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? specFiles(full) : [full];
  });
}

function suiteOf(file: string): 'test' | 'integration' | 'e2e' | undefined {
  if (file.endsWith('.int-spec.ts')) return 'integration';
  if (file.endsWith('.e2e-spec.ts')) return 'e2e';
  if (file.endsWith('.spec.ts')) return 'test';
  return undefined;
}

describe('test targets', () => {
  it('finds the projects', () => {
    const found = projects();
    expect(found.map((project) => project.root)).toEqual(expect.arrayContaining(['apps/notifications', 'libs/ledger']));
  });

  it.each(projects().map((project) => [project.root, project] as const))(
    '%s has a target for every kind of spec it holds',
    (_root, project) => {
      const kinds = new Set(specFiles(path.join(ROOT, project.root)).map(suiteOf).filter(Boolean));
      const missing = [...kinds].filter((kind) => !project.targets.includes(kind as string));
      expect(missing).toEqual([]);
    },
  );
});
