import { xdr } from '@stellar/stellar-sdk';
import { defineContractKind, type ContractEnv, type NativeContract } from '../../ledger/host/native-contract';
import { address, i128, string, symbol, toAddress, toBigInt, toNumber, toText, u32 } from '../scval';

/** Error codes of the Stellar Asset Contract, which SEP-41 clients already know how to read. */
export const TOKEN_ERRORS = {
  InternalError: 1,
  OperationNotSupported: 2,
  AlreadyInitialized: 3,
  Unauthorized: 4,
  NegativeAmount: 8,
  Allowance: 9,
  Balance: 10,
} as const;

const ADMIN = symbol('Admin');
const METADATA = symbol('METADATA');
const balanceKey = (owner: string) => xdr.ScVal.scvVec([symbol('Balance'), address(owner)]);
const allowanceKey = (from: string, spender: string) =>
  xdr.ScVal.scvVec([
    symbol('Allowance'),
    xdr.ScVal.scvMap([entry('from', address(from)), entry('spender', address(spender))]),
  ]);

function entry(key: string, val: xdr.ScVal): xdr.ScMapEntry {
  return new xdr.ScMapEntry({ key: symbol(key), val });
}

function field(map: xdr.ScVal | undefined, key: string): xdr.ScVal | undefined {
  return map
    ?.map()
    ?.find((item) => item.key().sym().toString() === key)
    ?.val();
}

/**
 * A SEP-41 token written like soroban-examples' token: balances in persistent `Balance(addr)` entries, allowances
 * in temporary `Allowance{from,spender}` entries that expire at their ledger, metadata in instance storage,
 * `["transfer", from, to]` events with the amount as data, and the Stellar Asset Contract's error codes.
 */
class TokenContract implements NativeContract {
  invoke(env: ContractEnv, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal {
    switch (fn) {
      case '__constructor':
        return this.construct(env, args);
      case 'mint':
        return this.mint(env, toAddress(args[0]), toBigInt(args[1]));
      case 'set_admin':
        env.requireAuth(this.admin(env));
        env.set('instance', ADMIN, args[0]);
        return xdr.ScVal.scvVoid();
      case 'balance':
        return i128(this.balance(env, toAddress(args[0])));
      case 'transfer':
        env.requireAuth(toAddress(args[0]));
        this.move(env, toAddress(args[0]), toAddress(args[1]), toBigInt(args[2]));
        return xdr.ScVal.scvVoid();
      case 'transfer_from':
        env.requireAuth(toAddress(args[0]));
        this.spendAllowance(env, toAddress(args[1]), toAddress(args[0]), toBigInt(args[3]));
        this.move(env, toAddress(args[1]), toAddress(args[2]), toBigInt(args[3]));
        return xdr.ScVal.scvVoid();
      case 'approve':
        return this.approve(env, toAddress(args[0]), toAddress(args[1]), toBigInt(args[2]), toNumber(args[3]));
      case 'allowance':
        return i128(this.allowance(env, toAddress(args[0]), toAddress(args[1])));
      case 'decimals':
        return field(env.get('instance', METADATA), 'decimal') ?? u32(7);
      case 'name':
        return field(env.get('instance', METADATA), 'name') ?? string('');
      case 'symbol':
        return field(env.get('instance', METADATA), 'symbol') ?? string('');
      default:
        return env.fail(TOKEN_ERRORS.OperationNotSupported, `unknown function ${fn}`);
    }
  }

  private construct(env: ContractEnv, args: readonly xdr.ScVal[]): xdr.ScVal {
    if (env.has('instance', ADMIN)) env.fail(TOKEN_ERRORS.AlreadyInitialized);
    env.set('instance', ADMIN, address(toAddress(args[0])));
    const metadata = xdr.ScVal.scvMap([
      entry('decimal', u32(toNumber(args[1]))),
      entry('name', string(toText(args[2]))),
      entry('symbol', string(toText(args[3]))),
    ]);
    env.set('instance', METADATA, metadata);
    return xdr.ScVal.scvVoid();
  }

  private admin(env: ContractEnv): string {
    return toAddress(env.get('instance', ADMIN));
  }

  private mint(env: ContractEnv, to: string, amount: bigint): xdr.ScVal {
    const admin = this.admin(env);
    env.requireAuth(admin);
    if (amount < 0n) env.fail(TOKEN_ERRORS.NegativeAmount);
    env.set('persistent', balanceKey(to), i128(this.balance(env, to) + amount));
    env.emit([symbol('mint'), address(admin), address(to)], i128(amount));
    return xdr.ScVal.scvVoid();
  }

  private balance(env: ContractEnv, owner: string): bigint {
    return toBigInt(env.get('persistent', balanceKey(owner)));
  }

  private move(env: ContractEnv, from: string, to: string, amount: bigint): void {
    if (amount < 0n) env.fail(TOKEN_ERRORS.NegativeAmount, 'negative amount is not allowed');
    const available = this.balance(env, from);
    if (available < amount) env.fail(TOKEN_ERRORS.Balance, 'balance is not sufficient to spend');
    env.set('persistent', balanceKey(from), i128(available - amount));
    env.set('persistent', balanceKey(to), i128(this.balance(env, to) + amount));
    env.emit([symbol('transfer'), address(from), address(to)], i128(amount));
  }

  private allowance(env: ContractEnv, from: string, spender: string): bigint {
    const stored = env.get('temporary', allowanceKey(from, spender));
    if (!stored) return 0n;
    const expiration = toNumber(field(stored, 'expiration_ledger'));
    return expiration < env.ledger.sequence ? 0n : toBigInt(field(stored, 'amount'));
  }

  private approve(env: ContractEnv, from: string, spender: string, amount: bigint, expiration: number): xdr.ScVal {
    env.requireAuth(from);
    if (amount < 0n) env.fail(TOKEN_ERRORS.NegativeAmount);
    if (amount > 0n && expiration < env.ledger.sequence)
      env.fail(TOKEN_ERRORS.Allowance, 'expiration ledger is in the past');
    const value = xdr.ScVal.scvMap([entry('amount', i128(amount)), entry('expiration_ledger', u32(expiration))]);
    env.set('temporary', allowanceKey(from, spender), value, Math.max(expiration, env.ledger.sequence));
    env.emit([symbol('approve'), address(from), address(spender)], xdr.ScVal.scvVec([i128(amount), u32(expiration)]));
    return xdr.ScVal.scvVoid();
  }

  private spendAllowance(env: ContractEnv, from: string, spender: string, amount: bigint): void {
    const allowed = this.allowance(env, from, spender);
    if (allowed < amount) env.fail(TOKEN_ERRORS.Allowance, 'insufficient allowance');
    const stored = env.get('temporary', allowanceKey(from, spender));
    const expiration = toNumber(field(stored, 'expiration_ledger'));
    const value = xdr.ScVal.scvMap([
      entry('amount', i128(allowed - amount)),
      entry('expiration_ledger', u32(expiration)),
    ]);
    env.set('temporary', allowanceKey(from, spender), value, expiration);
  }
}

export const TOKEN_CONTRACT = defineContractKind('sep41-token', new TokenContract());
