import { createHash } from 'node:crypto';
import {
  Account,
  Address,
  FeeBumpTransaction,
  Keypair,
  Operation,
  type Transaction,
  TransactionBuilder,
  rpc,
  scValToNative,
  xdr,
} from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { TOKEN_CONTRACT_ERRORS } from '../token/token-errors';
import { simulate } from '../transactions/simulate';
import type { ExactExpectation, ExactTransfer } from './exact-transfer';

/**
 * The least inclusion fee per operation a settlement offers (the network minimum; fee bumps pay it twice). A
 * settlement bids what `getFeeStats` asks (`settlementInclusionFee`), never less than this.
 */
export const SETTLEMENT_INCLUSION_FEE = 100;

/**
 * The inclusion fee per operation a settlement bids: the network's ask (`CloseFeeReader`, p95 of recent Soroban
 * inclusion fees + 25%), lowered so the sponsor's total (resource fee plus the inclusion fee, twice through a
 * lane's fee bump) stays within `maxFee` (`X402_MAX_SETTLEMENT_FEE_STROOPS`), never below the minimum (a settlement
 * whose minimum total is above the cap is refused by `buildSettlement`).
 */
export function settlementInclusionFee(ask: bigint, resourceFee: bigint, maxFee: bigint, laneFeeBump: boolean): bigint {
  const room = (maxFee - resourceFee) / (laneFeeBump ? 2n : 1n);
  const fee = ask < room ? ask : room;
  const floor = BigInt(SETTLEMENT_INCLUSION_FEE);
  return fee > floor ? fee : floor;
}

/** What the simulation of a settlement shows, and what it will cost the sponsor. */
export interface SettlementSimulation {
  /** Footprint, instructions and resource fee: from our simulation, never from the payer's envelope. */
  transactionData: xdr.SorobanTransactionData;
  resourceFee: bigint;
  /** Everything the sponsor pays for the settlement at most: resource fee plus inclusion fees. */
  totalFee: bigint;
}

/** Why a simulated settlement cannot go ahead. */
export type SettlementSimulationRefusal =
  | { kind: 'simulation_failed'; detail: string }
  | { kind: 'unexpected_effects'; detail: string };

/**
 * Simulates the transfer exactly as it will be settled: the payer's signed authorization, our source (`source`,
 * a settlement lane or the sponsor), no resources from the payer. Refuses a transfer whose simulation fails or
 * whose only effect is not the one transfer of `amount` from the payer to `payTo` in the asset: the events must be
 * exactly that (no other contract event), as the reference facilitator requires.
 */
export async function simulateSettlement(
  ledger: LedgerRpc,
  transfer: ExactTransfer,
  expected: Pick<ExactExpectation, 'asset' | 'payTo' | 'amount' | 'passphrase'>,
  source: string,
  laneFeeBump: boolean,
): Promise<SettlementSimulation | SettlementSimulationRefusal> {
  const probe = settlementTransaction({
    transfer,
    source,
    sequence: '0',
    passphrase: expected.passphrase,
    validUntil: Math.floor(Date.now() / 1000) + 300,
    fee: SETTLEMENT_INCLUSION_FEE,
  });
  let simulation: rpc.Api.SimulateTransactionSuccessResponse | rpc.Api.SimulateTransactionRestoreResponse;
  try {
    simulation = await simulate(ledger, probe, TOKEN_CONTRACT_ERRORS);
  } catch (error) {
    if (error instanceof Error && error.name === 'SimulationFailedError') {
      return { kind: 'simulation_failed', detail: error.message };
    }
    throw error;
  }
  if (rpc.Api.isSimulationRestore(simulation)) {
    return { kind: 'simulation_failed', detail: 'the payer’s balance entry must be restored first' };
  }
  const effects = unexpectedEffects(simulation.events, transfer, expected);
  if (effects) return { kind: 'unexpected_effects', detail: effects };
  const resourceFee = BigInt(simulation.minResourceFee);
  // The resource fee belongs in the transaction's Soroban data (the ledger charges it from there).
  const transactionData = simulation.transactionData.setResourceFee(resourceFee).build();
  const inclusion = BigInt(SETTLEMENT_INCLUSION_FEE) * (laneFeeBump ? 2n : 1n);
  return { transactionData, resourceFee, totalFee: resourceFee + inclusion };
}

/** A description of the first contract event that is not the expected transfer, or `undefined` when all is well. */
export function unexpectedEffects(
  events: readonly xdr.DiagnosticEvent[],
  transfer: ExactTransfer,
  expected: Pick<ExactExpectation, 'asset' | 'payTo' | 'amount'>,
): string | undefined {
  const transfers: { from: string; to: string; amount: bigint }[] = [];
  for (const diagnostic of events) {
    const event = diagnostic.event();
    if (event.type().name !== 'contract') continue;
    const contractId = event.contractId();
    const contract = contractId
      ? Address.fromScAddress(xdr.ScAddress.scAddressTypeContract(contractId)).toString()
      : undefined;
    const topics = event.body().v0().topics();
    const name = topics[0]?.switch().name === 'scvSymbol' ? topics[0].sym().toString() : undefined;
    if (name !== 'transfer' || topics.length < 3) return `an event other than the transfer (${name ?? 'unnamed'})`;
    if (contract !== expected.asset) return `a transfer of another asset (${contract ?? 'unknown contract'})`;
    const amount = transferAmount(event.body().v0().data());
    if (amount === undefined) return 'a transfer event without an amount';
    transfers.push({
      from: String(scValToNative(topics[1])),
      to: String(scValToNative(topics[2])),
      amount,
    });
  }
  if (transfers.length !== 1) return `${transfers.length} transfer events instead of one`;
  const [only] = transfers;
  if (only.from !== transfer.from || only.to !== expected.payTo || only.amount !== expected.amount) {
    return 'a transfer that is not the payment';
  }
  return undefined;
}

/** A transfer event's amount: an i128, or (protocol 23 muxed transfers) a map holding `amount`. */
function transferAmount(data: xdr.ScVal): bigint | undefined {
  const value = scValToNative(data) as unknown;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { amount?: unknown }).amount === 'bigint') {
    return (value as { amount: bigint }).amount;
  }
  return undefined;
}

export interface SettlementRequest {
  transfer: ExactTransfer;
  simulation: SettlementSimulation;
  /** The account whose sequence the settlement uses: a settlement lane, or the sponsor itself. */
  lane: Keypair;
  /** Its current sequence number; the settlement uses the next. */
  laneSequence: string;
  /** Inclusion fee per operation to bid (`settlementInclusionFee`); default the minimum. */
  inclusionFee?: bigint;
  /** Pays the fees (by fee bump when the lane is another account). */
  sponsor: Keypair;
  passphrase: string;
  /** Last moment the settlement may be included, unix seconds: it is never applied after. */
  validUntil: number;
  /** The most the sponsor may pay for it, in stroops. */
  maxFee: bigint;
}

export interface Settlement {
  /** Signed envelope, base64. */
  envelope: string;
  /** Its hash: known before it is sent, so it can be recorded first. */
  hash: string;
  /** What the sponsor pays at most, in stroops. */
  maxFee: bigint;
}

/** The settlement would cost the sponsor more than its cap allows. */
export class SettlementFeeTooHighError extends Error {
  override readonly name = 'SettlementFeeTooHighError';
  constructor(
    readonly fee: bigint,
    readonly cap: bigint,
  ) {
    super(`the settlement would cost ${fee} stroops, more than the cap of ${cap}`);
  }
}

/**
 * Builds and signs the settlement of a verified transfer: the payer's invocation and signed authorization, our
 * simulation's footprint and resource fee, time bounds ending at `validUntil`, the lane as source (its own
 * signature) and the sponsor paying through a fee bump (or, when the lane is the sponsor, as source). Nothing the
 * payer declared about resources or fees is used. Throws `SettlementFeeTooHighError` above the cap.
 */
export function buildSettlement(request: SettlementRequest): Settlement {
  const { lane, sponsor, passphrase, simulation } = request;
  if (simulation.totalFee > request.maxFee) throw new SettlementFeeTooHighError(simulation.totalFee, request.maxFee);
  const inclusionFee = request.inclusionFee ?? BigInt(SETTLEMENT_INCLUSION_FEE);
  const inner = settlementTransaction({
    transfer: request.transfer,
    source: lane.publicKey(),
    sequence: request.laneSequence,
    passphrase,
    validUntil: request.validUntil,
    // The builder adds the resource fee of the Soroban data to this inclusion fee.
    fee: inclusionFee,
    transactionData: simulation.transactionData,
  });
  inner.sign(lane);
  if (lane.publicKey() === sponsor.publicKey()) {
    const fee = BigInt(inner.fee);
    if (fee > request.maxFee) throw new SettlementFeeTooHighError(fee, request.maxFee);
    return { envelope: inner.toEnvelope().toXDR('base64'), hash: inner.hash().toString('hex'), maxFee: fee };
  }
  const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor, String(inclusionFee), inner, passphrase);
  bump.sign(sponsor);
  const maxFee = BigInt(bump.fee);
  if (maxFee > request.maxFee) throw new SettlementFeeTooHighError(maxFee, request.maxFee);
  return { envelope: bump.toEnvelope().toXDR('base64'), hash: bump.hash().toString('hex'), maxFee };
}

/**
 * stellar-core replaces a queued transaction only with a fee bump of the same inner transaction bidding at least
 * this many times its inclusion fee per operation (`canReplaceByFee`, `FEE_MULTIPLIER`).
 */
export const REPLACE_BY_FEE_MULTIPLIER = 10n;

export interface SettlementRepricing {
  /** The settlement as recorded and sent: a sponsor fee bump of the lane's signed transaction, or the sponsor's own. */
  envelope: string;
  sponsor: Keypair;
  passphrase: string;
  /** The inclusion fee per operation the network asks now. */
  ask: bigint;
  /** The most the sponsor may pay for it, in stroops (`X402_MAX_SETTLEMENT_FEE_STROOPS`). */
  maxFee: bigint;
}

/**
 * The same settlement bidding more: a new sponsor fee bump of the very same signed transaction (same source, same
 * sequence number, so at most one of the two can ever apply), at the network's ask or 10x the current bid, whichever
 * is higher (the queue replaces the waiting one only at 10x). `undefined` when the network asks no more than the
 * settlement bids, or when the new bid does not fit the cap: the settlement keeps waiting at its bid. Nothing else changes: the payer's authorization, our resources, the bounds.
 */
export function repriceSettlement(request: SettlementRepricing): Settlement | undefined {
  const { inner, resourceFee, bid } = settlementParts(request.envelope, request.passphrase);
  const operations = BigInt(inner.operations.length);
  // The network asks no more than the settlement bids: waiting is not about its fee, a higher one would not help.
  if (request.ask <= bid) return undefined;
  const needed = bid * REPLACE_BY_FEE_MULTIPLIER;
  const rate = request.ask > needed ? request.ask : needed;
  // The fee bump spreads its rate over the inner operations and itself, plus the resource fee.
  if (rate * (operations + 1n) + resourceFee > request.maxFee) return undefined;
  const bump = TransactionBuilder.buildFeeBumpTransaction(request.sponsor, rate.toString(), inner, request.passphrase);
  bump.sign(request.sponsor);
  return { envelope: bump.toEnvelope().toXDR('base64'), hash: bump.hash().toString('hex'), maxFee: BigInt(bump.fee) };
}

/** The inclusion fee per operation a settlement envelope bids (a fee bump spreads it over one more operation). */
export function settlementInclusionBid(envelopeXdr: string, passphrase: string): bigint {
  return settlementParts(envelopeXdr, passphrase).bid;
}

function settlementParts(envelopeXdr: string, passphrase: string) {
  const sent = TransactionBuilder.fromXDR(envelopeXdr, passphrase);
  const inner = sent instanceof FeeBumpTransaction ? sent.innerTransaction : sent;
  const data = inner.toEnvelope().v1().tx().ext();
  const resourceFee = data.switch() === 1 ? BigInt(data.sorobanData().resourceFee().toString()) : 0n;
  const sentOperations = BigInt(inner.operations.length + (sent instanceof FeeBumpTransaction ? 1 : 0));
  return { inner, resourceFee, bid: (BigInt(sent.fee) - resourceFee) / sentOperations };
}

interface SettlementTransactionParts {
  transfer: ExactTransfer;
  source: string;
  sequence: string;
  passphrase: string;
  validUntil: number;
  fee: number | bigint;
  transactionData?: xdr.SorobanTransactionData;
}

/** The transfer's invocation and signed authorization in a transaction of ours (a fresh one: no payer fields). */
function settlementTransaction(parts: SettlementTransactionParts): Transaction {
  const operation = parts.transfer.transaction.operations[0];
  if (operation?.type !== 'invokeHostFunction') throw new Error('a settlement needs the transfer’s invocation');
  const builder = new TransactionBuilder(new Account(parts.source, parts.sequence), {
    fee: String(parts.fee),
    networkPassphrase: parts.passphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: operation.func, auth: operation.auth ?? [] }))
    .setTimebounds(0, parts.validUntil);
  if (parts.transactionData) builder.setSorobanData(parts.transactionData);
  return builder.build();
}

/** The settlement lanes of a sponsor: accounts derived from its key, each a sequence of its own (ADR 009). */
export function settlementLanes(sponsor: Keypair, count: number): Keypair[] {
  return Array.from({ length: count }, (_, index) => settlementLane(sponsor, index));
}

/** sha256 of a label and the sponsor's seed: one key per index, the same on every replica, no secret of its own. */
function settlementLane(sponsor: Keypair, index: number): Keypair {
  const seed = createHash('sha256').update(`x402-settlement-lane:${index}:`).update(sponsor.rawSecretKey()).digest();
  return Keypair.fromRawEd25519Seed(seed);
}
