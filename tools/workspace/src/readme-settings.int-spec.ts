/**
 * The README's configuration tables against the code: every setting an app declares is documented with its real
 * default, and no table lists a setting that does not exist.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { APP_SLOTS, SettingDescription, describeSettings } from '@rp/dev';

const COMMON_SECTIONS = ['Every app', 'Redis', 'Database'];

/** Rows `| \`NAME\` | default | meaning |` of each `### heading` section. */
function documentedSettings(readme: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of readme.split('\n')) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) {
      current = new Map();
      sections.set(heading[1], current);
      continue;
    }
    const row = /^\| `([A-Z0-9_]+)` \| ([^|]+) \|/.exec(line);
    if (row && current) current.set(row[1], row[2].trim());
  }
  return sections;
}

function expectedCell(setting: SettingDescription): string {
  if (setting.required) return 'required';
  const value = setting.default;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '-';
  return `\`${String(value)}\``;
}

describe('README configuration tables', () => {
  const sections = documentedSettings(readFileSync(resolve(__dirname, '../../../README.md'), 'utf8'));
  const common = [...sections.entries()].filter(([title]) =>
    COMMON_SECTIONS.some((prefix) => title.startsWith(prefix)),
  );
  const declared = new Map(APP_SLOTS.map((slot) => [slot.app, describeSettings(slot.app)]));

  it.each(APP_SLOTS.map((slot) => slot.app))('document every setting of %s with its default', (app) => {
    const own = sections.get(app);
    expect(own).toBeDefined();
    const rows = (declared.get(app) ?? []).map((setting) => {
      const cell = own?.get(setting.name) ?? common.map(([, rows]) => rows.get(setting.name)).find(Boolean);
      return { setting: setting.name, documented: cell, expected: expectedCell(setting) };
    });
    expect(rows.filter((row) => row.documented !== row.expected)).toEqual([]);
  });

  it.each(APP_SLOTS.map((slot) => slot.app))('list no setting that %s does not have in its own table', (app) => {
    const names = new Set((declared.get(app) ?? []).map((setting) => setting.name));
    expect([...(sections.get(app)?.keys() ?? [])].filter((name) => !names.has(name))).toEqual([]);
  });

  it('list no shared setting that no app has', () => {
    const all = new Set([...declared.values()].flat().map((setting) => setting.name));
    const stale = common.flatMap(([, rows]) => [...rows.keys()]).filter((name) => !all.has(name));
    expect(stale).toEqual([]);
  });
});
