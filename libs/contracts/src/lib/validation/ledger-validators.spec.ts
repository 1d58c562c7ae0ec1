import { Keypair, StrKey } from '@stellar/stellar-base';
import { validateSync } from 'class-validator';
import { IsBaseUnitAmount, IsContractAddress, IsLedgerAccountAddress, IsRiskLevel } from './ledger-validators';

class BuildRequest {
  @IsLedgerAccountAddress()
  walletAddress!: unknown;

  @IsContractAddress()
  poolAddress!: unknown;

  @IsBaseUnitAmount()
  amount!: unknown;

  @IsRiskLevel()
  minRiskLevel!: unknown;
}

function errorsOf(values: Partial<BuildRequest>): Record<string, string> {
  const request = Object.assign(new BuildRequest(), {
    walletAddress: Keypair.random().publicKey(),
    poolAddress: StrKey.encodeContract(Buffer.alloc(32, 1)),
    amount: '10',
    minRiskLevel: 'high',
    ...values,
  });
  return Object.fromEntries(
    validateSync(request).map((error) => [error.property, Object.values(error.constraints ?? {}).join('; ')]),
  );
}

describe('ledger validators', () => {
  it('passes a valid request', () => {
    expect(errorsOf({})).toEqual({});
  });

  it('names the field and the rule for each invalid value', () => {
    expect(
      errorsOf({
        walletAddress: 'GABC',
        poolAddress: Keypair.random().publicKey(),
        amount: '-3',
        minRiskLevel: 'severe',
      }),
    ).toEqual({
      walletAddress: 'walletAddress must be a valid ledger G-address',
      poolAddress: 'poolAddress must be a valid contract C-address',
      amount: 'amount must be a non-negative integer string in base units (at most 2^127-1)',
      minRiskLevel: 'minRiskLevel must be one of low, medium, high, critical (or healthy, warn, alert, emergency)',
    });
  });

  it('accepts the cooldown vocabulary for risk levels', () => {
    expect(errorsOf({ minRiskLevel: 'emergency' })).toEqual({});
    expect(errorsOf({ minRiskLevel: 'WARN' })).toEqual({});
  });
});
