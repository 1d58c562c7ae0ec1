import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ValidateBy, ValidateIf, ValidateNested, type ValidationArguments } from 'class-validator';
import { type RiskLevelBounds, scaledHealthFactorOf } from './health-factor';

/** The level bounds of a risk configuration, health factors as numbers (`1.25`). */
export interface RiskConfigLevels {
  readonly medium: number;
  readonly high: number;
  readonly critical: number;
}

/** A wallet's effective risk configuration (DECISIONS.md "Risk and notifications"). */
export interface RiskConfigSettings {
  readonly levels: RiskConfigLevels;
  readonly oracleMaxAgeSeconds: number;
  readonly utilizationWarnBps: number;
  readonly utilizationAlertBps: number;
  readonly depegBps: number;
}

/** What a PUT may leave out: every field, each level on its own. */
export interface RiskConfigInput {
  readonly levels?: Partial<RiskConfigLevels>;
  readonly oracleMaxAgeSeconds?: number;
  readonly utilizationWarnBps?: number;
  readonly utilizationAlertBps?: number;
  readonly depegBps?: number;
}

/** The defaults of DECISIONS.md: 1.50 / 1.25 / 1.10, 300 s, 8000 / 9000 bps, 200 bps. */
export const RISK_CONFIG_DEFAULTS: RiskConfigSettings = {
  levels: { medium: 1.5, high: 1.25, critical: 1.1 },
  oracleMaxAgeSeconds: 300,
  utilizationWarnBps: 8000,
  utilizationAlertBps: 9000,
  depegBps: 200,
};

/** Level bounds are health factors above 1.0 and at most this. */
export const MAX_LEVEL_BOUND = 100;

/** The configuration with every unset field at its default, and the names of those fields (`levels.high`, ...). */
export function effectiveRiskConfig(input: RiskConfigInput | undefined): {
  config: RiskConfigSettings;
  defaults: string[];
} {
  const defaults: string[] = [];
  const pick = <T>(value: T | undefined, fallback: T, name: string): T => {
    if (value !== undefined && value !== null) return value;
    defaults.push(name);
    return fallback;
  };
  const d = RISK_CONFIG_DEFAULTS;
  const levels = input?.levels;
  const config: RiskConfigSettings = {
    levels: {
      medium: pick(levels?.medium, d.levels.medium, 'levels.medium'),
      high: pick(levels?.high, d.levels.high, 'levels.high'),
      critical: pick(levels?.critical, d.levels.critical, 'levels.critical'),
    },
    oracleMaxAgeSeconds: pick(input?.oracleMaxAgeSeconds, d.oracleMaxAgeSeconds, 'oracleMaxAgeSeconds'),
    utilizationWarnBps: pick(input?.utilizationWarnBps, d.utilizationWarnBps, 'utilizationWarnBps'),
    utilizationAlertBps: pick(input?.utilizationAlertBps, d.utilizationAlertBps, 'utilizationAlertBps'),
    depegBps: pick(input?.depegBps, d.depegBps, 'depegBps'),
  };
  return { config, defaults };
}

/** The level bounds of a configuration in 7-decimal fixed point (what `riskLevelOfHealthFactor` compares). */
export function boundsOfRiskConfig(config: RiskConfigSettings): RiskLevelBounds {
  return {
    medium: scaledHealthFactorOf(config.levels.medium),
    high: scaledHealthFactorOf(config.levels.high),
    critical: scaledHealthFactorOf(config.levels.critical),
    utilizationWarnBps: config.utilizationWarnBps,
    utilizationAlertBps: config.utilizationAlertBps,
    depegBps: config.depegBps,
    oracleMaxAgeSeconds: config.oracleMaxAgeSeconds,
  };
}

type LevelName = keyof RiskConfigLevels;
const LEVEL_ORDER: readonly LevelName[] = ['medium', 'high', 'critical'];

function isNumberIn(value: unknown, above: number, atMost: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > above && value <= atMost;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** The value a level has once unset levels take their defaults. */
function levelOf(levels: object, name: LevelName): unknown {
  const value = (levels as Record<string, unknown>)[name];
  return value === undefined ? RISK_CONFIG_DEFAULTS.levels[name] : value;
}

/** Whether a level bound is a health factor in (1.0, MAX_LEVEL_BOUND] below the one above it and above the one below. */
function isLevelBound(name: LevelName, value: unknown, levels: object): boolean {
  if (!isNumberIn(value, 1, MAX_LEVEL_BOUND)) return false;
  const index = LEVEL_ORDER.indexOf(name);
  const above = index > 0 ? levelOf(levels, LEVEL_ORDER[index - 1]) : undefined;
  const below = index < LEVEL_ORDER.length - 1 ? levelOf(levels, LEVEL_ORDER[index + 1]) : undefined;
  if (typeof above === 'number' && !(value < above)) return false;
  if (typeof below === 'number' && !(value > below)) return false;
  return true;
}

/** One rule per field, so a bad value gives exactly one `details[]` entry. */
function rule(name: string, check: (value: unknown, args: ValidationArguments) => boolean, message: string) {
  return ValidateBy({
    name,
    validator: { validate: (value, args) => check(value, args as ValidationArguments), defaultMessage: () => message },
  });
}

function levelRule(name: LevelName): PropertyDecorator {
  return rule(
    'isLevelBound',
    (value, args) => isLevelBound(name, value, args.object),
    `must be a health factor above 1.0 and at most ${MAX_LEVEL_BOUND}, the bounds strictly decreasing ` +
      '(medium > high > critical, an unset one at its default 1.50 / 1.25 / 1.10)',
  );
}

function MayBeOmitted(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/** `levels` of `PUT /api/v1/rms/config/:walletAddress`: each bound optional. */
export class RiskConfigLevelsRequest {
  @MayBeOmitted()
  @levelRule('medium')
  medium?: number;

  @MayBeOmitted()
  @levelRule('high')
  high?: number;

  @MayBeOmitted()
  @levelRule('critical')
  critical?: number;
}

function bpsOf(object: object, name: 'utilizationWarnBps' | 'utilizationAlertBps'): unknown {
  const value = (object as Record<string, unknown>)[name];
  return value === undefined ? RISK_CONFIG_DEFAULTS[name] : value;
}

/** `PUT /api/v1/rms/config/:walletAddress`: every field optional, an unset one at its default. */
export class PutRiskConfigRequest {
  @MayBeOmitted()
  @ValidateNested({ message: 'must be an object {medium, high, critical}' })
  @Type(() => RiskConfigLevelsRequest)
  levels?: RiskConfigLevelsRequest;

  @MayBeOmitted()
  @rule('isMaxAge', (value) => isIntegerIn(value, 1, 86_400), 'must be a whole number of seconds, 1 to 86400')
  oracleMaxAgeSeconds?: number;

  @MayBeOmitted()
  @rule(
    'isWarnBps',
    (value, args) => {
      const alert = bpsOf(args.object, 'utilizationAlertBps');
      return isIntegerIn(value, 1, 10_000) && (typeof alert !== 'number' || value < alert);
    },
    'must be whole basis points, 1 to 10000, below utilizationAlertBps (default 9000)',
  )
  utilizationWarnBps?: number;

  @MayBeOmitted()
  @rule(
    'isAlertBps',
    (value, args) => {
      const warn = bpsOf(args.object, 'utilizationWarnBps');
      return isIntegerIn(value, 1, 10_000) && (typeof warn !== 'number' || value > warn);
    },
    'must be whole basis points, 1 to 10000, above utilizationWarnBps (default 8000)',
  )
  utilizationAlertBps?: number;

  @MayBeOmitted()
  @rule('isDepegBps', (value) => isIntegerIn(value, 1, 10_000), 'must be whole basis points, 1 to 10000')
  depegBps?: number;
}

/** The answer of `GET|PUT /api/v1/rms/config/:walletAddress`. */
export interface RiskConfigResponse extends RiskConfigSettings {
  readonly success: true;
  readonly walletAddress: string;
  /** The fields at their default (not set by the account), dotted (`levels.high`). */
  readonly defaults: string[];
  readonly updatedAt: string;
}
