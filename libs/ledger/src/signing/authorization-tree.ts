import { Address, xdr } from '@stellar/stellar-sdk';
import type { UnwindPosition } from '../blend/unwind-planner';

/**
 * The authorization entries of a close the wallet would authorize (source-account credentials, since the wallet is
 * the source, or address credentials of the wallet): each must have exactly the transaction's invocation as root, and
 * its only sub-invocations may be `transfer(wallet, pool, amount)` on a reserve token of the pool (what `submit`
 * pays in). Anything else there would move the wallet's tokens elsewhere with its authority.
 */

export type AuthorizedTreeRefusal = 'auth_root_mismatch' | 'auth_moves_funds';

export interface AuthorizedCall {
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

interface TreeContext {
  readonly wallet: string;
  readonly pool: string;
  readonly position: UnwindPosition;
}

export function checkAuthorizations(
  entries: readonly xdr.SorobanAuthorizationEntry[],
  invocation: AuthorizedCall,
  context: TreeContext,
): { reason: AuthorizedTreeRefusal; detail: string } | undefined {
  const reserves = new Set(context.position.reserves.map((reserve) => reserve.asset));
  for (const entry of entries) {
    if (!signedByWallet(entry.credentials(), context.wallet)) continue;
    const root = entry.rootInvocation();
    if (!sameCall(root.function(), invocation)) {
      return { reason: 'auth_root_mismatch', detail: 'an authorization the wallet signs is not the transaction invocation' };
    }
    const stray = strayMovement(root.subInvocations(), context, reserves);
    if (stray) return { reason: 'auth_moves_funds', detail: stray };
  }
  return undefined;
}

function signedByWallet(credentials: xdr.SorobanCredentials, wallet: string): boolean {
  if (credentials.switch().name === 'sorobanCredentialsSourceAccount') return true;
  return Address.fromScAddress(credentials.address().address()).toString() === wallet;
}

function sameCall(fn: xdr.SorobanAuthorizedFunction, call: AuthorizedCall): boolean {
  if (fn.switch().name !== 'sorobanAuthorizedFunctionTypeContractFn') return false;
  const args = fn.contractFn();
  return (
    Address.fromScAddress(args.contractAddress()).toString() === call.contract &&
    args.functionName().toString() === call.fn &&
    args.args().length === call.args.length &&
    args.args().every((arg, i) => arg.toXDR('base64') === call.args[i].toXDR('base64'))
  );
}

/** A sub-invocation that is not the wallet paying a reserve token into the pool, described; else undefined. */
function strayMovement(
  nodes: readonly xdr.SorobanAuthorizedInvocation[],
  context: TreeContext,
  reserves: ReadonlySet<string>,
): string | undefined {
  for (const node of nodes) {
    const fn = node.function();
    if (fn.switch().name !== 'sorobanAuthorizedFunctionTypeContractFn') return 'a contract creation in the authorization';
    const call = fn.contractFn();
    const contract = Address.fromScAddress(call.contractAddress()).toString();
    const name = call.functionName().toString();
    const args = call.args();
    const paysPool =
      name === 'transfer' &&
      reserves.has(contract) &&
      args.length === 3 &&
      addressOr(args[0]) === context.wallet &&
      addressOr(args[1]) === context.pool;
    if (!paysPool) return `the authorization lets ${contract}.${name} act with the wallet's authority`;
    const deeper = strayMovement(node.subInvocations(), context, reserves);
    if (deeper) return deeper;
  }
  return undefined;
}

function addressOr(value: xdr.ScVal): string | undefined {
  return value.switch().name === 'scvAddress' ? Address.fromScVal(value).toString() : undefined;
}
