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

/** Several property decorators as one (Nest's `applyDecorators`, without loading Nest: the agent runs without it). */
function combine(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, propertyKey) => {
    for (const decorator of decorators) decorator(target, propertyKey);
  };
}
