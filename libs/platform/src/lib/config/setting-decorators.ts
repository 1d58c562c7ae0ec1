import 'reflect-metadata';
import { IsDefined, IsInt, IsUrl, Max, Min, ValidateBy, ValidationOptions } from 'class-validator';

const SECRET_SETTINGS = Symbol('rp:secret-settings');

/** Marks a setting whose value must never be printed: not in errors, not in the boot log, not in any log line. */
export function Secret(): PropertyDecorator {
  return (target, key) => {
    const inherited: string[] = Reflect.getMetadata(SECRET_SETTINGS, target) ?? [];
    Reflect.defineMetadata(SECRET_SETTINGS, [...inherited, String(key)], target);
  };
}

export function secretSettingsOf(config: object): ReadonlySet<string> {
  return new Set<string>(Reflect.getMetadata(SECRET_SETTINGS, Object.getPrototypeOf(config)) ?? []);
}

/** A setting that has no default and must be given. */
export function Required(options?: ValidationOptions): PropertyDecorator {
  return IsDefined({ message: '$property is required', ...options });
}

/**
 * A setting that may be left unset in development and tests but must be given with `NODE_ENV=production`. Unlike
 * `Required()` it does not make the setting required everywhere (the settings listing shows no "required").
 */
export function RequiredInProduction(): PropertyDecorator {
  return ValidateBy({
    name: 'requiredInProduction',
    validator: {
      validate: (value, args) =>
        value !== undefined || (args?.object as { NODE_ENV?: string }).NODE_ENV !== 'production',
      defaultMessage: () => '$property is required when NODE_ENV is production',
    },
  });
}

export function IsPortNumber(): PropertyDecorator {
  const message = '$property must be an integer between 1 and 65535';
  return combine(IsInt({ message }), Min(1, { message }), Max(65535, { message }));
}

/** A whole number of milliseconds or seconds, at least `min`. */
export function IsDuration(min = 0): PropertyDecorator {
  const message = `$property must be an integer of at least ${min}`;
  return combine(IsInt({ message }), Min(min, { message }));
}

/** An http(s) URL; loopback and single-label hosts are fine (services find each other by name). */
export function IsHttpUrl(): PropertyDecorator {
  return IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: '$property must be an http:// or https:// URL' },
  );
}

const ORIGIN_ONLY_SETTINGS = Symbol('rp:origin-only-settings');

/** Why one entry of an http(s) URL list is refused, by position; `undefined` when every entry is fine. */
export function httpUrlListProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'is not text';
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return 'is empty';
  for (const [index, entry] of entries.entries()) {
    const position = `entry ${index + 1} of ${entries.length}`;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return `${position} is not a URL`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${position} is not an http(s) URL`;
    if (entries.findIndex((other) => other === entry) !== index) return `${position} repeats an earlier one`;
  }
  return undefined;
}

/**
 * An http(s) URL or a comma-separated list of them, tried in order (RPC endpoints). Providers put API keys in
 * userinfo, paths and queries, so such a setting is only ever shown as its origins: in the boot log and in the
 * line that refuses it (which names the bad entry by position).
 */
export function IsHttpUrlList(): PropertyDecorator {
  return combine(
    ValidateBy({
      name: 'isHttpUrlList',
      validator: {
        validate: (value) => httpUrlListProblem(value) === undefined,
        defaultMessage: (args) =>
          `$property must be an http(s) URL or a comma-separated list of them: ${httpUrlListProblem(args?.value)}`,
      },
    }),
    (target, key) => {
      const inherited: string[] = Reflect.getMetadata(ORIGIN_ONLY_SETTINGS, target) ?? [];
      Reflect.defineMetadata(ORIGIN_ONLY_SETTINGS, [...inherited, String(key)], target);
    },
  );
}

export function originOnlySettingsOf(config: object): ReadonlySet<string> {
  return new Set<string>(Reflect.getMetadata(ORIGIN_ONLY_SETTINGS, Object.getPrototypeOf(config)) ?? []);
}

/** A URL list as it may be shown: each entry's origin, `<not a URL>` for one that does not parse. */
export function urlListOrigins(value: string): string {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      try {
        const { origin } = new URL(entry);
        return origin === 'null' ? '<not an http(s) URL>' : origin;
      } catch {
        return '<not a URL>';
      }
    })
    .join(',');
}

/** Several property decorators as one (Nest's `applyDecorators`, without loading Nest: the agent runs without it). */
function combine(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, propertyKey) => {
    for (const decorator of decorators) decorator(target, propertyKey);
  };
}
