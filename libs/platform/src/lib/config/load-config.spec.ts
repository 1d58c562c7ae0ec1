import { IsOptional, IsString, Matches } from 'class-validator';
import { AppConfig, StatefulServiceConfig } from './app-config';
import { ConfigError, describeConfig, loadConfig, secretValuesOf } from './load-config';
import { Required, Secret } from './setting-decorators';

class ExampleConfig extends StatefulServiceConfig {
  override PORT = 3009;

  @Required()
  @IsString()
  @Secret()
  LEDGER_MNEMONIC!: string;

  @IsOptional()
  @Matches(/^C[A-Z2-7]{55}$/, { each: true, message: '$property must be a comma-separated list of C-addresses' })
  RMS_POOLS: string[] = [];

  @IsOptional()
  @IsString()
  @Secret()
  SMTP_PASSWORD?: string;
}

const mnemonic = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';

function load(env: Record<string, string>) {
  return loadConfig(ExampleConfig, { LEDGER_MNEMONIC: mnemonic, ...env });
}

function problemOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('uses the class defaults when nothing is set', () => {
    const config = load({});
    expect(config.PORT).toBe(3009);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.REDIS_HOST).toBe('127.0.0.1');
    expect(config.RMS_POOLS).toEqual([]);
    expect(config.databaseUrl()).toBeUndefined();
  });

  it('converts numbers and comma-separated lists by their declared type, ignoring blank values', () => {
    const pool = `C${'A'.repeat(55)}`;
    const config = load({ PORT: '8081', REDIS_DB: '2', RMS_POOLS: ` ${pool} ,${pool}`, LOG_LEVEL: '  ' });
    expect(config.PORT).toBe(8081);
    expect(config.REDIS_DB).toBe(2);
    expect(config.RMS_POOLS).toEqual([pool, pool]);
    expect(config.LOG_LEVEL).toBe('info');
  });

  it('names the variable, the rule and the value in one line for a malformed setting', () => {
    const message = problemOf({ PORT: 'abc' });
    expect(message).toBe('invalid configuration: PORT must be an integer between 1 and 65535 (got "abc")');
    expect(message).not.toContain('\n');
  });

  it('reports every bad setting at once, still on one line', () => {
    expect(problemOf({ PORT: '70000', LOG_LEVEL: 'loud' })).toBe(
      'invalid configuration: PORT must be an integer between 1 and 65535 (got "70000"); ' +
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    );
  });

  it('says a required setting is missing', () => {
    expect(() => loadConfig(ExampleConfig, {})).toThrow('invalid configuration: LEDGER_MNEMONIC is required');
  });

  it('never prints the value of a secret setting, even when it is invalid', () => {
    const message = problemOf({ SMTP_PASSWORD: 'x', REDIS_URL: 'http://not-redis' });
    expect(problemOf({ LEDGER_MNEMONIC: '' })).toContain('LEDGER_MNEMONIC is required');
    expect(message).toContain('REDIS_URL must be a redis:// or rediss:// URL (got "http://not-redis")');
    const badUrl = problemOf({ DATABASE_URL: 'mysql://admin:hunter22@db/x' });
    expect(badUrl).toContain('DATABASE_URL must start with');
    expect(badUrl).not.toContain('hunter22');
  });

  it('describes the config with secrets hidden and URL passwords masked', () => {
    const config = load({ SMTP_PASSWORD: 'smtp-pass-123', DATABASE_URL: 'postgres://app:s3cret-pw@db:5432/rp' });
    const described = describeConfig(config);
    expect(described['LEDGER_MNEMONIC']).toBe('[SECRET]');
    expect(described['SMTP_PASSWORD']).toBe('[SECRET]');
    expect(described['DATABASE_URL']).toBe('postgres://app:***@db:5432/rp');
    expect(JSON.stringify(described)).not.toContain('s3cret-pw');
    expect(secretValuesOf(config).sort()).toEqual([mnemonic, 'smtp-pass-123'].sort());
  });

  it('composes a database URL from its parts', () => {
    const config = load({
      DATABASE_DRIVER: 'postgres',
      DATABASE_HOST: 'db',
      DATABASE_PORT: '5433',
      DATABASE_USER: 'rp',
      DATABASE_PASSWORD: 'p@ss',
      DATABASE_NAME: 'risk',
    });
    expect(config.databaseUrl()).toBe('postgres://rp:p%40ss@db:5433/risk');
  });

  it('reads Redis from a URL or from host and port', () => {
    expect(load({ REDIS_URL: 'redis://cache:6380/1' }).redis()).toMatchObject({ url: 'redis://cache:6380/1' });
    expect(load({ REDIS_PORT: '6390' }).redis()).toMatchObject({ host: '127.0.0.1', port: 6390, db: 0 });
    expect(load({ REDIS_HOST: '' }).configuredRedis()).toMatchObject({ host: '127.0.0.1' });
  });

  it('accepts the base AppConfig on its own', () => {
    expect(loadConfig(AppConfig, { PORT: '1' }).PORT).toBe(1);
  });
});
