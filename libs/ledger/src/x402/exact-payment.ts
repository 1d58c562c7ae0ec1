import {
  Address,
  Operation,
  Transaction,
  authorizeEntry,
  contract,
  hash,
  nativeToScVal,
  type xdr,
} from '@stellar/stellar-sdk';
import { networkFromCaip2, networkPassphrase } from '../network/ledger-network';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { buildInvocation } from '../transactions/build-invocation';
import { TOKEN_CONTRACT_ERRORS } from '../token/token-errors';
import { assemble, simulate } from '../transactions/simulate';
import { LedgerTiming } from './ledger-timing';
import { type ExactRequirements, type PaymentPayload, X402_VERSION } from './x402-messages';

/** What signs a payer's authorization: a `LedgerWallet`, or any holder of an ed25519 key. */
export interface AuthorizationSigner {
  address: string;
  signHash(digest: Uint8Array): Buffer;
}

export interface ExactPaymentRequest {
  ledger: LedgerRpc;
  payer: AuthorizationSigner;
  requirements: ExactRequirements;
  /**
   * Expiration of the authorization; default the window every party computes (`LedgerTiming`:
   * `latest + ceil(maxTimeoutSeconds / recent close time)`).
   */
  expirationLedger?: number;
  /** Reuse a timing (its measured close time is cached); one is made for this call otherwise. */
  timing?: LedgerTiming;
  /** Leave the authorization unsigned (tests of the verifier). */
  unsigned?: boolean;
  resource?: PaymentPayload['resource'];
}

/** The unsigned `transfer(from, payTo, amount)` call of the requirements' asset. */
export function exactTransferOperation(from: string, requirements: ExactRequirements): xdr.Operation {
  return Operation.invokeContractFunction({
    contract: requirements.asset,
    function: 'transfer',
    args: [
      new Address(from).toScVal(),
      new Address(requirements.payTo).toScVal(),
      nativeToScVal(BigInt(requirements.amount), { type: 'i128' }),
    ],
  });
}

/**
 * The transfer, simulated and assembled with the SDK's null account as source (as the reference client does):
 * the payer's authorization then comes back with address credentials, to be signed, and the payer needs no
 * classic account. Throws `SimulationFailedError` when the ledger refuses the transfer.
 */
export async function buildExactTransfer(
  ledger: LedgerRpc,
  from: string,
  requirements: ExactRequirements,
): Promise<Transaction> {
  const tx = buildInvocation({
    source: contract.NULL_ACCOUNT,
    sequence: '0',
    op: exactTransferOperation(from, requirements),
    validUntil: Math.floor(Date.now() / 1000) + requirements.maxTimeoutSeconds,
    network: networkFromCaip2(requirements.network),
  });
  return assemble(tx, await simulate(ledger, tx, TOKEN_CONTRACT_ERRORS));
}

/**
 * Simulates a transfer again once its authorization is signed (signature checks cost resources) and returns the
 * envelope with the final footprint and fee; the signed authorization is kept.
 */
export async function finalizeExactTransfer(ledger: LedgerRpc, envelope: string, passphrase: string): Promise<string> {
  const tx = new Transaction(envelope, passphrase);
  return assemble(tx, await simulate(ledger, tx, TOKEN_CONTRACT_ERRORS))
    .toEnvelope()
    .toXDR('base64');
}

/**
 * Builds an x402 exact payment the way the reference client does, without its HTTPS-only RPC client: the
 * transfer, its authorization signed by the payer for a bounded number of ledgers, simulated again. The envelope
 * itself stays unsigned: the facilitator resubmits it with the sponsor as source.
 */
export async function createExactPayment(request: ExactPaymentRequest): Promise<PaymentPayload> {
  const { ledger, payer, requirements } = request;
  const passphrase = networkPassphrase(networkFromCaip2(requirements.network));
  const assembled = await buildExactTransfer(ledger, payer.address, requirements);
  const expiration =
    request.expirationLedger ??
    (await (request.timing ?? new LedgerTiming(ledger)).window(requirements.maxTimeoutSeconds)).expirationLedger;
  const envelope = assembled.toEnvelope();
  if (request.unsigned) return payloadOf(envelope.toXDR('base64'), requirements, request.resource);
  const operation = envelope.v1().tx().operations()[0].body().invokeHostFunctionOp();
  const signed = await Promise.all(
    operation
      .auth()
      .map((entry) =>
        isAuthorizationOf(entry, payer.address)
          ? authorizeEntry(
              entry,
              async (preimage) => ({ signature: payer.signHash(hash(preimage.toXDR())), publicKey: payer.address }),
              expiration,
              passphrase,
            )
          : entry,
      ),
  );
  operation.auth(signed);
  const final = await finalizeExactTransfer(ledger, envelope.toXDR('base64'), passphrase);
  return payloadOf(final, requirements, request.resource);
}

function isAuthorizationOf(entry: xdr.SorobanAuthorizationEntry, address: string): boolean {
  const credentials = entry.credentials();
  return (
    credentials.switch().name === 'sorobanCredentialsAddress' &&
    Address.fromScAddress(credentials.address().address()).toString() === address
  );
}

function payloadOf(
  transaction: string,
  requirements: ExactRequirements,
  resource: PaymentPayload['resource'],
): PaymentPayload {
  return {
    x402Version: X402_VERSION,
    accepted: requirements,
    payload: { transaction },
    ...(resource ? { resource } : {}),
  };
}
