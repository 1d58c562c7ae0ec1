import { IsOptional, IsString, IsUrl, Matches } from 'class-validator';
import { AppConfig, StatefulServiceConfig } from './app-config';
import { ConfigError, describeConfig, loadConfig, secretValuesOf } from './load-config';
import { IsHttpUrlList, Required, Secret } from './setting-decorators';

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

class RpcListConfig extends AppConfig {
  @IsOptional()
  @IsHttpUrlList()
  CONTRACT_RPC_URL?: string;
}

class RpcConfig extends AppConfig {
  @IsOptional()
  @IsUrl({ protocols: ['https'], require_tld: false })
  CONTRACT_RPC_URL?: string;

  @IsOptional()
  @IsUrl({ protocols: ['https'], require_tld: false })
  FALLBACK_RPC_URL?: string;

  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_tld: false },
    { each: true, message: '$property must be http(s) URLs' },
  )
  MIRROR_RPC_URLS: string[] = [];
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

  it('describes the config with secrets hidden and URL credentials masked', () => {
    const config = load({ SMTP_PASSWORD: 'smtp-pass-123', DATABASE_URL: 'postgres://app:s3cret-pw@db:5432/rp' });
    const described = describeConfig(config);
    expect(described['LEDGER_MNEMONIC']).toBe('[SECRET]');
    expect(described['SMTP_PASSWORD']).toBe('[SECRET]');
    expect(described['DATABASE_URL']).toBe('postgres://***@db:5432/rp');
    expect(JSON.stringify(described)).not.toContain('s3cret-pw');
    expect(secretValuesOf(config).sort()).toEqual([mnemonic, 'smtp-pass-123'].sort());
  });

  it('masks the userinfo and the query values of every URL setting, lists included', () => {
    const config = loadConfig(RpcConfig, {
      CONTRACT_RPC_URL: 'https://rpc.example.com/soroban?apikey=QUERY-KEY-1&network=pubnet#frag-KEY',
      FALLBACK_RPC_URL: 'https://USERINFO-KEY-2@rpc.example.net/v1',
      MIRROR_RPC_URLS: 'https://a.example/rpc?BARE-KEY-3, https://user:PASS-4@b.example:8443/rpc?x=1&&token=TOKEN-5',
    });
    const described = describeConfig(config);
    expect(described).toMatchObject({
      CONTRACT_RPC_URL: 'https://rpc.example.com/soroban?apikey=***&network=***#***',
      FALLBACK_RPC_URL: 'https://***@rpc.example.net/v1',
      MIRROR_RPC_URLS: ['https://a.example/rpc?***', 'https://***@b.example:8443/rpc?x=***&&token=***'],
    });
    const text = JSON.stringify(described);
    for (const secret of ['QUERY-KEY-1', 'frag-KEY', 'USERINFO-KEY-2', 'BARE-KEY-3', 'PASS-4', 'TOKEN-5']) {
      expect(text).not.toContain(secret);
    }
  });

  it('masks URL credentials in the line that refuses a malformed setting', () => {
    let message = '';
    try {
      loadConfig(RpcConfig, { MIRROR_RPC_URLS: 'https://ok.example/rpc?key=KEY-6, ftp://user:PASS-7@nope?key=KEY-8' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'invalid configuration: MIRROR_RPC_URLS must be http(s) URLs ' +
        '(got "https://ok.example/rpc?key=***, ftp://***@nope?key=***")',
    );
  });

  it('shows an RPC URL list only as its origins: in the description and in the refusal, which names the entry', () => {
    const list = 'https://rpc.example.com/v1/PATH-KEY-9, https://user:PASS-10@b.example:8443/?key=KEY-11';
    const described = describeConfig(loadConfig(RpcListConfig, { CONTRACT_RPC_URL: list }));
    expect(described['CONTRACT_RPC_URL']).toBe('https://rpc.example.com,https://b.example:8443');
    let message = '';
    try {
      loadConfig(RpcListConfig, { CONTRACT_RPC_URL: `${list}, rpc.example.org/PATH-KEY-12` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'invalid configuration: CONTRACT_RPC_URL must be an http(s) URL or a comma-separated list of them: ' +
        'entry 3 of 3 is not a URL (got "https://rpc.example.com,https://b.example:8443,<not a URL>")',
    );
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

  it('takes the embedded SQLite database by URL or by driver, and refuses the former pglite scheme', () => {
    expect(load({ DATABASE_URL: 'sqlite://memory' }).databaseUrl()).toBe('sqlite://memory');
    expect(load({ DATABASE_URL: 'sqlite:///var/lib/rp/agent.sqlite' }).databaseUrl()).toBe(
      'sqlite:///var/lib/rp/agent.sqlite',
    );
    expect(load({ DATABASE_DRIVER: 'sqlite' }).databaseUrl()).toBeUndefined();
    expect(load({ DATABASE_DRIVER: 'sqlite', DATABASE_NAME: 'agent-2' }).databaseUrl()).toBe(
      'sqlite://.data/agent-2.sqlite',
    );
    expect(problemOf({ DATABASE_URL: 'pglite://memory' })).toBe(
      'invalid configuration: DATABASE_URL must start with mongodb://, mongodb+srv://, postgres://, ' +
        'postgresql:// or sqlite:// (got "pglite://memory")',
    );
    expect(problemOf({ DATABASE_DRIVER: 'pglite' })).toBe(
      'invalid configuration: DATABASE_DRIVER must be one of mongodb, postgres, sqlite (got "pglite")',
    );
    expect(problemOf({ DATABASE_DRIVER: 'sqlite', DATABASE_HOST: 'db' })).toBe(
      'invalid configuration: DATABASE_DRIVER sqlite is a local file: DATABASE_HOST, DATABASE_PORT, ' +
        'DATABASE_USER, DATABASE_PASSWORD must be unset (got "sqlite")',
    );
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
