import type { xdr } from '@stellar/stellar-sdk';

/** The network's minimum inclusion fee per operation, in stroops. */
export const BASE_FEE = 100n;
/** Reserve an account must keep: 2 base reserves of 0.5 XLM. */
export const MINIMUM_BALANCE = 10_000_000n;

export interface DeclaredResources {
  readonly instructions: number;
  readonly diskReadBytes: number;
  readonly writeBytes: number;
  readonly readOnlyEntries: number;
  readonly readWriteEntries: number;
}

/**
 * The sandbox's resource fee model. Real fees come from network settings; this one keeps the same shape (a cost
 * per instruction, per entry read and written, per byte) with round numbers, so a simulated transfer costs about
 * 0.002 XLM and a pool submit about 0.004 XLM, well under x402's 50 000 stroop ceiling.
 */
export function resourceFeeFor(resources: DeclaredResources): bigint {
  return (
    2_000n +
    BigInt(Math.ceil(resources.instructions / 10_000)) * 25n +
    BigInt(resources.readOnlyEntries) * 600n +
    BigInt(resources.readWriteEntries) * 1_500n +
    BigInt(Math.ceil((resources.diskReadBytes + resources.writeBytes) / 1024)) * 100n
  );
}

/** The instructions the sandbox charges for an invocation: a base plus a cost per contract call. */
export function instructionsFor(calls: number): number {
  return 1_500_000 + calls * 750_000;
}

export function declaredResources(data: xdr.SorobanTransactionData): DeclaredResources {
  const resources = data.resources();
  const footprint = resources.footprint();
  return {
    instructions: resources.instructions(),
    diskReadBytes: resources.diskReadBytes(),
    writeBytes: resources.writeBytes(),
    readOnlyEntries: footprint.readOnly().length,
    readWriteEntries: footprint.readWrite().length,
  };
}
