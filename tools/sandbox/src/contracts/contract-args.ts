import type { xdr } from '@stellar/stellar-sdk';
import type { ContractEnv } from '../ledger/host/native-contract';

/** Argument `i` of a call, or the contract error `code` when the caller left it out. */
export function requiredArg(env: ContractEnv, args: readonly xdr.ScVal[], i: number, code: number): xdr.ScVal {
  const value = args[i];
  if (value === undefined) env.fail(code, `missing argument ${i}`);
  return value;
}

/** An instance-storage value the constructor wrote, or the contract error `code` when it is missing. */
export function requiredInstance(env: ContractEnv, key: xdr.ScVal, code: number, what: string): xdr.ScVal {
  const value = env.get('instance', key);
  if (value === undefined) env.fail(code, `${what} not initialized`);
  return value;
}
