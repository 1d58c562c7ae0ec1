import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';
import { parseRiskLevel } from '../risk/risk-level';
import { isBaseUnitAmount, isContractAddress, isLedgerAccountAddress, isLedgerSecretSeed } from './ledger-values';

export function IsLedgerAccountAddress(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLedgerAccountAddress',
      validator: {
        validate: (value) => isLedgerAccountAddress(value),
        defaultMessage: buildMessage((each) => `${each}$property must be a valid ledger G-address`, options),
      },
    },
    options,
  );
}

export function IsContractAddress(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isContractAddress',
      validator: {
        validate: (value) => isContractAddress(value),
        defaultMessage: buildMessage((each) => `${each}$property must be a valid contract C-address`, options),
      },
    },
    options,
  );
}

export function IsLedgerSecretSeed(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLedgerSecretSeed',
      validator: {
        validate: (value) => isLedgerSecretSeed(value),
        defaultMessage: buildMessage((each) => `${each}$property must be a valid ledger secret seed (S...)`, options),
      },
    },
    options,
  );
}

export function IsBaseUnitAmount(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isBaseUnitAmount',
      validator: {
        validate: (value) => isBaseUnitAmount(value),
        defaultMessage: buildMessage(
          (each) => `${each}$property must be a non-negative integer string in base units (at most 2^127-1)`,
          options,
        ),
      },
    },
    options,
  );
}

/** Accepts a risk level in either vocabulary (`high` or `alert`). */
export function IsRiskLevel(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isRiskLevel',
      validator: {
        validate: (value) => parseRiskLevel(value) !== undefined,
        defaultMessage: buildMessage(
          (each) => `${each}$property must be one of low, medium, high, critical (or healthy, warn, alert, emergency)`,
          options,
        ),
      },
    },
    options,
  );
}
