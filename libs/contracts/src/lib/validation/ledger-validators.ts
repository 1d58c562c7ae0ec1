import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';
import { parseRiskLevel } from '../risk/risk-level';
import { isBaseUnitAmount, isContractAddress, isLedgerAccountAddress, isLedgerSecretSeed } from './ledger-values';

type PropertyValidator = (options?: ValidationOptions) => PropertyDecorator;

/** A class-validator decorator from a check and the rule it states (`<property> <rule>` in messages). */
function validatorOf(name: string, check: (value: unknown) => boolean, rule: string): PropertyValidator {
  return (options) =>
    ValidateBy(
      {
        name,
        validator: {
          validate: (value) => check(value),
          defaultMessage: buildMessage((each) => `${each}$property ${rule}`, options),
        },
      },
      options,
    );
}

export const IsLedgerAccountAddress = validatorOf(
  'isLedgerAccountAddress',
  isLedgerAccountAddress,
  'must be a valid ledger G-address',
);

export const IsContractAddress = validatorOf(
  'isContractAddress',
  isContractAddress,
  'must be a valid contract C-address',
);

export const IsLedgerSecretSeed = validatorOf(
  'isLedgerSecretSeed',
  isLedgerSecretSeed,
  'must be a valid ledger secret seed (S...)',
);

export const IsBaseUnitAmount = validatorOf(
  'isBaseUnitAmount',
  isBaseUnitAmount,
  'must be a non-negative integer string in base units (at most 2^127-1)',
);

/** Accepts a risk level in either vocabulary (`high` or `alert`). */
export const IsRiskLevel = validatorOf(
  'isRiskLevel',
  (value) => parseRiskLevel(value) !== undefined,
  'must be one of low, medium, high, critical (or healthy, warn, alert, emergency)',
);
