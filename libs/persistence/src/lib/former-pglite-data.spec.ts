import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formerPgliteDataNotice } from './former-pglite-data';

describe('the notice about a former PGlite data folder', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rp-former-pglite-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('names the folder <dir>/<app> beside the SQLite file and says it is ignored and can be deleted', () => {
    mkdirSync(join(dataDir, 'agent', 'base'), { recursive: true });
    const notice = formerPgliteDataNotice({ driver: 'sqlite', file: join(dataDir, 'agent.sqlite') }, 'agent');
    expect(notice).toBe(
      `${join(dataDir, 'agent')} is the data folder of the former embedded database (PGlite): ` +
        'it is ignored and can be deleted',
    );
    expect(notice).not.toContain('\n');
  });

  it('says nothing when there is no such folder, or the database is elsewhere or in memory', () => {
    writeFileSync(join(dataDir, 'notifications'), 'a file, not a folder');
    mkdirSync(join(dataDir, 'agent'));
    expect(
      formerPgliteDataNotice({ driver: 'sqlite', file: join(dataDir, 'subscription.sqlite') }, 'subscription'),
    ).toBe(undefined);
    expect(
      formerPgliteDataNotice({ driver: 'sqlite', file: join(dataDir, 'notifications.sqlite') }, 'notifications'),
    ).toBeUndefined();
    expect(formerPgliteDataNotice({ driver: 'sqlite', file: join(dataDir, 'other.sqlite') }, 'agent')).toBeUndefined();
    expect(formerPgliteDataNotice({ driver: 'sqlite', file: undefined }, 'agent')).toBeUndefined();
    expect(formerPgliteDataNotice({ driver: 'postgres', url: 'postgres://db/rp' }, 'agent')).toBeUndefined();
  });
});
