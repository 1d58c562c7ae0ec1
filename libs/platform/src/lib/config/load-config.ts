import 'reflect-metadata';
import { ValidationError, getMetadataStorage, validateSync } from 'class-validator';
import { originOnlySettingsOf, secretSettingsOf, urlListOrigins } from './setting-decorators';

/** A setting is missing or malformed. The message is one line that names the variable and the problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type ConfigClass<T> = new () => T;

/** The settings a config class declares: every property that carries at least one validation decorator. */
export function settingNamesOf(configClass: ConfigClass<object>): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(configClass, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))];
}

/**
 * Builds a config object from the environment: defaults come from the class's initialisers, values are converted
 * by the declared type (number, boolean, string list), then every rule is checked. Throws `ConfigError`.
 */
export function loadConfig<T extends object>(configClass: ConfigClass<T>, env: NodeJS.ProcessEnv = process.env): T {
  const config = new configClass();
  const target = config as Record<string, unknown>;
  const raw: Record<string, string> = {};
  for (const name of settingNamesOf(configClass)) {
    const value = env[name]?.trim();
    if (value === undefined || value === '') continue;
    raw[name] = value;
    target[name] = convert(value, declaredType(configClass, name, target[name]));
  }
  const errors = validateSync(config, { stopAtFirstError: true, forbidUnknownValues: false });
  if (errors.length > 0) {
    const secrets = secretSettingsOf(config);
    const originOnly = originOnlySettingsOf(config);
    const problems = errors.map((error) =>
      describeProblem(error, raw[error.property], secrets.has(error.property), originOnly.has(error.property)),
    );
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return config;
}

/**
 * The config as it may be printed: secrets replaced; in every URL (a setting or an item of a list setting) the
 * userinfo and the query values masked, since database passwords and RPC providers' API keys travel there.
 */
export function describeConfig(config: object): Record<string, unknown> {
  const secrets = secretSettingsOf(config);
  const originOnly = originOnlySettingsOf(config);
  const described: Record<string, unknown> = {};
  for (const name of settingNamesOf(config.constructor as ConfigClass<object>)) {
    const value = (config as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (secrets.has(name)) described[name] = '[SECRET]';
    else if (originOnly.has(name) && typeof value === 'string') described[name] = urlListOrigins(value);
    else described[name] = maskUrls(value);
  }
  return described;
}

/** `scheme://userinfo@host/path?query#fragment`, the parts taken apart without normalising anything. */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/is;

/**
 * A URL with its userinfo replaced by `***` and each query value by `***` (a parameter without a value, such as
 * `?<key>`, entirely); the fragment, if any, too. Anything that is not a URL is returned as it is.
 */
export function maskUrl(value: string): string {
  const parts = URL_PARTS.exec(value);
  if (!parts) return value;
  const [, scheme, authority, path, query, fragment] = parts;
  const at = authority.lastIndexOf('@');
  const host = at >= 0 ? `***@${authority.slice(at + 1)}` : authority;
  const params = query
    ? `?${query
        .slice(1)
        .split('&')
        .map((param) => (param === '' ? param : param.includes('=') ? `${param.split('=')[0]}=***` : '***'))
        .join('&')}`
    : '';
  return `${scheme}${host}${path}${params}${fragment ? '#***' : ''}`;
}

function maskUrls(value: unknown): unknown {
  if (typeof value === 'string') return maskUrl(value);
  if (Array.isArray(value)) return value.map((item: unknown) => (typeof item === 'string' ? maskUrl(item) : item));
  return value;
}

/** Every secret value currently set, so the log scrubber can remove it wherever it appears. */
export function secretValuesOf(config: object): string[] {
  return [...secretSettingsOf(config)]
    .map((name) => (config as Record<string, unknown>)[name])
    .filter((value): value is string => typeof value === 'string' && value.length > 0);
}

/** The type a setting converts to: its annotation, or the type of its default (`PORT = 3000` has no annotation). */
function declaredType(configClass: ConfigClass<object>, name: string, defaultValue: unknown): unknown {
  const annotated: unknown = Reflect.getMetadata('design:type', configClass.prototype, name);
  if (annotated === Number || annotated === Boolean || annotated === Array) return annotated;
  if (typeof defaultValue === 'number') return Number;
  if (typeof defaultValue === 'boolean') return Boolean;
  if (Array.isArray(defaultValue)) return Array;
  return annotated;
}

function convert(value: string, type: unknown): unknown {
  if (type === Number) return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  if (type === Boolean) {
    const lowered = value.toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(lowered)) return true;
    if (['false', '0', 'no', 'off'].includes(lowered)) return false;
    return value;
  }
  if (type === Array) {
    return value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }
  return value;
}

function describeProblem(
  error: ValidationError,
  rawValue: string | undefined,
  secret: boolean,
  originOnly: boolean,
): string {
  const rule = Object.values(error.constraints ?? {})[0] ?? `${error.property} is invalid`;
  if (rawValue === undefined) return rule;
  const masked = originOnly ? urlListOrigins(rawValue) : maskCommaSeparatedUrls(rawValue);
  const shown = secret ? 'value hidden' : `got ${JSON.stringify(masked)}`;
  return `${rule} (${shown})`;
}

/** A raw setting, which may be a comma-separated list of URLs, with each URL masked. */
function maskCommaSeparatedUrls(raw: string): string {
  return raw
    .split(',')
    .map((item) => {
      const trimmed = item.trim();
      return item.replace(trimmed, maskUrl(trimmed));
    })
    .join(',');
}
