import { xdr } from '@stellar/stellar-sdk';
import { blendScVal, decodePriceData, encodeOracleAsset } from '@rp/ledger';
import { type ContractEnv, type NativeContract, defineContractKind } from '../../ledger/host/native-contract';
import { requiredArg, requiredInstance } from '../contract-args';

/**
 * A flash-loan receiver that swaps, for UNWIND. The pool sends it `amount` of `token` and calls
 * `exec_op(caller, token, amount, fee)`; it converts that amount into the route's `token_out` at the oracle's last
 * prices (both SEP-40 `lastprice` in the oracle's base), keeps `fee_bps` of the output, adjusts for the two tokens'
 * decimals and transfers the result to `caller`, who then repays or re-supplies within the same `flash_loan`.
 * Model: an infinitely deep market at oracle price minus a fixed fee, paid from output liquidity the sandbox setup
 * mints to this contract (a `BalanceError` from the token when it runs dry). The input stays here. It only accepts
 * calls from another contract (the pool), since it cannot verify it was paid.
 * Storage: instance `Admin`, `Oracle`, `FeeBps`; persistent `Route(token_in)` -> token_out. Read-only functions
 * `route(token_in)` and `quote(token_in, amount_in)` tell a builder what `exec_op` will do.
 */

const ERRORS = { UnknownFunction: 1, BadArgument: 2, Unauthorized: 4, NoRoute: 20, NoPrice: 21 } as const;
const { readAddress, readI128, readU32, scAddress, scI128, scSymbol, scU32 } = blendScVal;
const VOID = xdr.ScVal.scvVoid();
const BPS = 10_000n;

const key = (name: string): xdr.ScVal => scSymbol(name);
const routeKey = (tokenIn: string): xdr.ScVal => xdr.ScVal.scvVec([scSymbol('Route'), scAddress(tokenIn)]);

const arg = (env: ContractEnv, args: readonly xdr.ScVal[], i: number): xdr.ScVal =>
  requiredArg(env, args, i, ERRORS.BadArgument);

const instance = (env: ContractEnv, name: string): xdr.ScVal =>
  requiredInstance(env, key(name), ERRORS.BadArgument, `receiver (${name})`);

function priceOf(env: ContractEnv, oracle: string, token: string): bigint {
  const result = env.call(oracle, 'lastprice', [encodeOracleAsset({ stellar: token })]);
  if (blendScVal.isVoid(result)) env.fail(ERRORS.NoPrice, `no price for ${token}`);
  const { price } = decodePriceData(result);
  if (price <= 0n) env.fail(ERRORS.NoPrice, `no price for ${token}`);
  return price;
}

const decimalsOf = (env: ContractEnv, token: string): bigint => BigInt(readU32(env.call(token, 'decimals', [])));

/** Output of selling `amountIn` of `tokenIn` for `tokenOut`, floored, after the fee. */
export function quoteSwap(env: ContractEnv, tokenIn: string, tokenOut: string, amountIn: bigint): bigint {
  const oracle = readAddress(instance(env, 'Oracle'));
  const feeBps = BigInt(readU32(instance(env, 'FeeBps')));
  const value = amountIn * priceOf(env, oracle, tokenIn) * 10n ** decimalsOf(env, tokenOut);
  const gross = value / (priceOf(env, oracle, tokenOut) * 10n ** decimalsOf(env, tokenIn));
  return (gross * (BPS - feeBps)) / BPS;
}

export const swapReceiverContract: NativeContract = {
  invoke(env: ContractEnv, fn: string, args: readonly xdr.ScVal[]): xdr.ScVal {
    switch (fn) {
      case '__constructor': {
        const feeBps = readU32(arg(env, args, 2));
        if (BigInt(feeBps) > BPS) env.fail(ERRORS.BadArgument, 'fee_bps above 10000');
        env.set('instance', key('Admin'), scAddress(readAddress(arg(env, args, 0))));
        env.set('instance', key('Oracle'), scAddress(readAddress(arg(env, args, 1))));
        env.set('instance', key('FeeBps'), scU32(feeBps));
        return VOID;
      }
      case 'set_route':
        env.requireAuth(readAddress(instance(env, 'Admin')));
        env.set('persistent', routeKey(readAddress(arg(env, args, 0))), scAddress(readAddress(arg(env, args, 1))));
        return VOID;
      case 'route': {
        // Read-only: what `exec_op` would sell `token_in` for (void when there is no route).
        const route = env.get('persistent', routeKey(readAddress(arg(env, args, 0))));
        return route ?? VOID;
      }
      case 'quote': {
        const tokenIn = readAddress(arg(env, args, 0));
        const route = env.get('persistent', routeKey(tokenIn));
        if (route === undefined) env.fail(ERRORS.NoRoute);
        return scI128(quoteSwap(env, tokenIn, readAddress(route), readI128(arg(env, args, 1))));
      }
      case 'exec_op': {
        if (env.invoker === undefined) env.fail(ERRORS.Unauthorized, 'exec_op is for flash-loan lenders');
        const caller = readAddress(arg(env, args, 0));
        const token = readAddress(arg(env, args, 1));
        const amount = readI128(arg(env, args, 2));
        const route = env.get('persistent', routeKey(token));
        if (route === undefined) env.fail(ERRORS.NoRoute, `no route from ${token}`);
        const tokenOut = readAddress(route);
        const out = quoteSwap(env, token, tokenOut, amount);
        if (out > 0n) env.call(tokenOut, 'transfer', [scAddress(env.address), scAddress(caller), scI128(out)]);
        env.emit(
          [scSymbol('swap'), scAddress(token), scAddress(tokenOut), scAddress(caller)],
          xdr.ScVal.scvVec([scI128(amount), scI128(out)]),
        );
        return VOID;
      }
      default:
        return env.fail(ERRORS.UnknownFunction, `unknown receiver function ${fn}`);
    }
  },
};

export const SWAP_RECEIVER_CONTRACT = defineContractKind('swap-receiver', swapReceiverContract);
