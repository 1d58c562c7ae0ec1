import { describeTarget, parseDatabaseUrl } from './database-url';

describe('parseDatabaseUrl', () => {
  it('defaults to an embedded SQLite file .data/<app>.sqlite', () => {
    expect(parseDatabaseUrl(undefined, 'subscription')).toEqual({
      driver: 'sqlite',
      file: '.data/subscription.sqlite',
    });
  });

  it('picks the driver by scheme', () => {
    expect(parseDatabaseUrl('mongodb://db:27017/rp', 'a')).toEqual({ driver: 'mongodb', url: 'mongodb://db:27017/rp' });
    expect(parseDatabaseUrl('mongodb+srv://cluster/rp', 'a').driver).toBe('mongodb');
    expect(parseDatabaseUrl('postgres://u:p@db/rp', 'a').driver).toBe('postgres');
    expect(parseDatabaseUrl('postgresql://db/rp', 'a').driver).toBe('postgres');
    expect(() => parseDatabaseUrl('mysql://db/rp', 'a')).toThrow('unsupported scheme "mysql"');
    expect(() => parseDatabaseUrl('pglite://memory', 'a')).toThrow('unsupported scheme "pglite"');
  });

  it('reads a SQLite location: memory, a file relative to the working directory, or an absolute file', () => {
    expect(parseDatabaseUrl('sqlite://memory', 'a')).toEqual({ driver: 'sqlite', file: undefined });
    expect(parseDatabaseUrl('sqlite://tmp/rp.sqlite', 'a')).toEqual({ driver: 'sqlite', file: 'tmp/rp.sqlite' });
    expect(parseDatabaseUrl('sqlite://./memory', 'a')).toEqual({ driver: 'sqlite', file: 'memory' });
    expect(parseDatabaseUrl('sqlite:///var/lib/rp/agent.sqlite', 'a')).toEqual({
      driver: 'sqlite',
      file: '/var/lib/rp/agent.sqlite',
    });
    expect(() => parseDatabaseUrl('sqlite://', 'a')).toThrow('must name a file');
    expect(() => parseDatabaseUrl('sqlite:///var/lib/', 'a')).toThrow('must name a file');
  });

  it('describes a target without its credentials', () => {
    expect(describeTarget({ driver: 'postgres', url: 'postgres://rp:secret@db:5432/risk' })).toBe(
      'postgres db:5432/risk',
    );
    expect(describeTarget({ driver: 'sqlite', file: undefined })).toBe('sqlite (in memory)');
    expect(describeTarget({ driver: 'sqlite', file: '.data/agent.sqlite' })).toBe('sqlite (.data/agent.sqlite)');
  });
});
