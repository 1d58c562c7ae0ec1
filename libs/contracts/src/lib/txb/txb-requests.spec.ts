import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { BuildTransactionRequest, ProposalsQuery, SubmitTransactionRequest } from './txb-requests';

const WALLET = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const POOL = 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA';
const USDC = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';

function problems<T extends object>(type: new () => T, body: object): Record<string, string> {
  return Object.fromEntries(
    validateSync(plainToInstance(type, body)).map((error) => [
      error.property,
      Object.values(error.constraints ?? {}).join('; '),
    ]),
  );
}

const build = (body: object) =>
  problems(BuildTransactionRequest, {
    action: 'REPAY',
    walletAddress: WALLET,
    poolAddress: POOL,
    tokenId: USDC,
    ...body,
  });

describe('BuildTransactionRequest', () => {
  it('accepts the spec body, amount and slippage included', () => {
    expect(build({ amount: '10000000', slippageBps: 100 })).toEqual({});
  });

  it('names each field a request gets wrong', () => {
    expect(
      build({ action: 'BORROW', walletAddress: POOL, poolAddress: WALLET, amount: '-5', slippageBps: 10_001 }),
    ).toEqual({
      action: 'action must be one of REPAY, LIQUIDATE, UNWIND, RESCUE',
      walletAddress: 'walletAddress must be a valid ledger G-address',
      poolAddress: 'poolAddress must be a valid contract C-address',
      amount: 'amount must be a non-negative integer string in base units (at most 2^127-1)',
      slippageBps: 'slippageBps must be an integer from 0 to 10000',
    });
  });

  it('needs tokenId for REPAY and LIQUIDATE, not for UNWIND', () => {
    expect(build({ tokenId: undefined })).toEqual({ tokenId: 'tokenId must be a valid contract C-address' });
    expect(build({ action: 'LIQUIDATE', tokenId: undefined })).toHaveProperty('tokenId');
    expect(build({ action: 'UNWIND', tokenId: undefined })).toEqual({});
    expect(build({ action: 'UNWIND', tokenId: 'nope' })).toHaveProperty('tokenId');
  });

  it('refuses a zero amount, an amount with UNWIND, and a target health factor without it', () => {
    expect(build({ amount: '0' })).toEqual({ amount: 'amount must be greater than zero' });
    expect(build({ action: 'UNWIND', amount: '5' })).toEqual({
      amount: 'amount is not accepted with UNWIND or RESCUE (they size themselves; use targetHealthFactor)',
    });
    expect(build({ targetHealthFactor: 1.5 })).toEqual({
      targetHealthFactor: 'targetHealthFactor is accepted with UNWIND or RESCUE only',
    });
    expect(build({ action: 'UNWIND', targetHealthFactor: 1.5 })).toEqual({});
  });

  it('accepts RESCUE without tokenId or amount, with an optional target, and refuses an amount with it', () => {
    expect(build({ action: 'RESCUE', tokenId: undefined })).toEqual({});
    expect(build({ action: 'RESCUE', targetHealthFactor: 1.1 })).toEqual({});
    expect(build({ action: 'RESCUE', amount: '5' })).toHaveProperty('amount');
    expect(build({ action: 'RESCUE', targetHealthFactor: 1 })).toHaveProperty('targetHealthFactor');
  });

  it.each([[1], [100.5], [1.123456789], ['1.5'], [Number.NaN]])('refuses targetHealthFactor %p', (value) => {
    expect(build({ action: 'UNWIND', targetHealthFactor: value })).toHaveProperty('targetHealthFactor');
  });

  it('refuses null for an optional field: present, it must be valid', () => {
    for (const field of ['amount', 'slippageBps']) expect(build({ [field]: null })).toHaveProperty(field);
    expect(build({ action: 'UNWIND', targetHealthFactor: null })).toHaveProperty('targetHealthFactor');
    expect(problems(SubmitTransactionRequest, { transactionXdr: 'AAAA', rpcUrl: null })).toHaveProperty('rpcUrl');
  });

  it('accepts feeLevel normal or high, and names anything else', () => {
    expect(build({ feeLevel: 'normal' })).toEqual({});
    expect(build({ feeLevel: 'high' })).toEqual({});
    for (const feeLevel of ['urgent', 'HIGH', 1, null]) {
      expect(build({ feeLevel })).toEqual({ feeLevel: 'feeLevel must be one of normal, high' });
    }
  });

  it('refuses a slippage given as a string or a fraction', () => {
    expect(build({ slippageBps: '50' })).toHaveProperty('slippageBps');
    expect(build({ slippageBps: 12.5 })).toHaveProperty('slippageBps');
  });
});

describe('SubmitTransactionRequest and ProposalsQuery', () => {
  it('wants a base64 envelope and an http(s) rpcUrl when one is given', () => {
    expect(problems(SubmitTransactionRequest, { transactionXdr: 'AAAA' })).toEqual({});
    expect(problems(SubmitTransactionRequest, { transactionXdr: 'not base64!' })).toEqual({
      transactionXdr: 'transactionXdr must be a signed transaction envelope (base64 XDR)',
    });
    expect(problems(SubmitTransactionRequest, { transactionXdr: 'AAAA', rpcUrl: 'ftp://rpc' })).toEqual({
      rpcUrl: 'rpcUrl must be an http:// or https:// URL',
    });
    expect(problems(SubmitTransactionRequest, {})).toHaveProperty('transactionXdr');
  });

  it('wants a G-address as wallet', () => {
    expect(problems(ProposalsQuery, { wallet: WALLET })).toEqual({});
    expect(problems(ProposalsQuery, { wallet: POOL })).toEqual({ wallet: 'wallet must be a valid ledger G-address' });
  });
});
