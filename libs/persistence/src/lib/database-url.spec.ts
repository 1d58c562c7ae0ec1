import { describeTarget, parseDatabaseUrl } from './database-url';

describe('parseDatabaseUrl', () => {
  it('defaults to embedded PGlite under .data/<app>', () => {
    expect(parseDatabaseUrl(undefined, 'subscription')).toEqual({ driver: 'pglite', dataDir: '.data/subscription' });
  });

  it('picks the driver by scheme', () => {
    expect(parseDatabaseUrl('mongodb://db:27017/rp', 'a')).toEqual({ driver: 'mongodb', url: 'mongodb://db:27017/rp' });
    expect(parseDatabaseUrl('mongodb+srv://cluster/rp', 'a').driver).toBe('mongodb');
    expect(parseDatabaseUrl('postgres://u:p@db/rp', 'a').driver).toBe('postgres');
    expect(parseDatabaseUrl('postgresql://db/rp', 'a').driver).toBe('postgres');
    expect(parseDatabaseUrl('pglite://memory', 'a')).toEqual({ driver: 'pglite', dataDir: undefined });
    expect(parseDatabaseUrl('pglite://tmp/data', 'a')).toEqual({ driver: 'pglite', dataDir: 'tmp/data' });
    expect(parseDatabaseUrl('pglite:///var/lib/rp', 'a')).toEqual({ driver: 'pglite', dataDir: '/var/lib/rp' });
    expect(() => parseDatabaseUrl('mysql://db/rp', 'a')).toThrow('unsupported scheme "mysql"');
  });

  it('describes a target without its credentials', () => {
    expect(describeTarget({ driver: 'postgres', url: 'postgres://rp:secret@db:5432/risk' })).toBe(
      'postgres db:5432/risk',
    );
    expect(describeTarget({ driver: 'pglite', dataDir: undefined })).toBe('pglite (in memory)');
  });
});
