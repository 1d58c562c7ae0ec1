import { Injectable } from '@nestjs/common';
import { type BuildTransactionRequest, MAX_OPERATIONS_PER_TRANSACTION, SLIPPAGE_BPS } from '@rp/contracts';
import {
  type AccountState,
  type BlendPool,
  MissingPriceError,
  type PreparedInvocation,
  PoolNotFoundError,
  type PositionSummary,
  type Positions,
  SimulationFailedError,
  decodePositions,
  summarizePositions,
} from '@rp/ledger';
import { TxbConfig } from '../config/txb.config';
import { newProposalId, type ProposalRecord } from '../proposals/proposal';
import { ProposalRepository } from '../proposals/proposal.repository';
import { type BalancesWanted, type PositionSnapshot, PositionReader } from '../positions/position.reader';
import { planLiquidate, planRepay } from './action-plans';
import { planRescueAction } from './rescue-plan';
import { type ActionPlan, type BuildOutcome, type BuildRefusal, isRefusal, refused } from './build-outcome';
import { previewOf } from './preview';
import { InclusionFeePricer } from './inclusion-fee-pricer';
import { TransactionAssembler } from './transaction-assembler';
import { UnwindRouter } from './unwind-router';
import { warningsFor } from './warnings';

/**
 * Builds a proposal: reads the position, plans the action, prices its inclusion fee from `getFeeStats` at the
 * asked `feeLevel`, simulates the transaction (which carries that fee plus the simulation's resources, resource fee
 * and authorization, the wallet as source and time bounds ending at the proposal's
 * expiry), previews the position the simulation leaves, and stores the proposal for the caller's account.
 */
@Injectable()
export class BuildService {
  constructor(
    private readonly config: TxbConfig,
    private readonly reader: PositionReader,
    private readonly unwind: UnwindRouter,
    private readonly assembler: TransactionAssembler,
    private readonly proposals: ProposalRepository,
    private readonly fees: InclusionFeePricer,
  ) {}

  async build(accountId: string, request: BuildTransactionRequest): Promise<BuildOutcome> {
    const slippageBps = request.slippageBps ?? SLIPPAGE_BPS.default;
    let snapshot: PositionSnapshot;
    try {
      snapshot = await this.reader.read(request.poolAddress, request.walletAddress, balancesWanted(request));
    } catch (error) {
      if (error instanceof PoolNotFoundError) return refused({ code: 'POOL_NOT_FOUND', pool: request.poolAddress });
      throw error;
    }
    const before = summarize(snapshot, snapshot.positions);
    if ('code' in before) return refused(before);
    if (!before.reserves.some((row) => row.collateral > 0n || row.liability > 0n)) {
      return refused({ code: 'NO_POSITION_FOUND', pool: request.poolAddress });
    }
    const account = snapshot.account;
    if (!account) return refused({ code: 'ACCOUNT_NOT_FOUND', wallet: request.walletAddress });

    let plan = await this.plan(request, snapshot, before, slippageBps);
    if (isRefusal(plan)) return refused(plan);
    if (plan.operations > MAX_OPERATIONS_PER_TRANSACTION) {
      return refused({ code: 'TOO_MANY_OPERATIONS', operations: plan.operations });
    }

    const inclusion = await this.fees.price(request.feeLevel ?? 'normal');
    const createdAt = Date.now();
    const expiresAt = createdAt + this.config.PROPOSAL_TTL_SECONDS * 1000;
    let prepared = await this.prepare(account, plan, expiresAt, inclusion.fee);
    if (isShortOfBalance(prepared) && request.action === 'REPAY' && request.tokenId) {
      // The wallet cannot pay the padded amount. Read what it holds: enough for the amount itself still makes a
      // repay (with less room for interest), and the answer says the wallet is short of the max cost.
      snapshot = { ...snapshot, balances: await this.reader.balances(request.walletAddress, [request.tokenId]) };
      const replanned = await this.plan(request, snapshot, before, slippageBps);
      if (isRefusal(replanned)) return refused(replanned);
      plan = replanned;
      prepared = await this.prepare(account, plan, expiresAt, inclusion.fee);
    }
    if ('code' in prepared) return refused(prepared);
    const retval = prepared.returnValue;
    const positionsAfter = plan.changesPosition && retval ? decodePositions(retval) : snapshot.positions;
    const after = summarize(snapshot, positionsAfter);
    if ('code' in after) return refused(after);

    const id = newProposalId(createdAt);
    const transaction = {
      transactionXdr: prepared.transactionXdr,
      sourceAddress: request.walletAddress,
      operations: plan.operations,
      fee: inclusion.fee.toString(),
      createdAt: new Date(createdAt).toISOString(),
    };
    const record: ProposalRecord = {
      id,
      accountId,
      walletAddress: request.walletAddress,
      action: request.action,
      status: 'pending',
      createdAt,
      expiresAt,
      updatedAt: createdAt,
      hash: prepared.hash,
      transaction,
      metadata: plan.metadata,
    };
    await this.proposals.create(record);
    return {
      ok: true,
      answer: {
        success: true,
        transaction,
        proposal: { id, status: 'pending', expiresAt: new Date(expiresAt).toISOString(), metadata: plan.metadata },
        warnings: warningsFor({
          poolStatus: snapshot.pool.config.status,
          now: Math.floor(createdAt / 1000),
          priceTimes: priceTimes(snapshot, before),
          before,
          after,
          capped: plan.capped,
          // A balance is read only when the simulation showed the wallet short; otherwise it covered the max cost.
          maxCost: plan.maxCost && {
            ...plan.maxCost,
            balance: snapshot.balances.get(plan.maxCost.token) ?? plan.maxCost.amount,
            decimals: decimalsOf(snapshot.pool, plan.maxCost.token),
          },
          approval: plan.approval,
          fee: inclusion,
        }),
        preview: previewOf(before, after),
      },
    };
  }

  private async prepare(
    account: AccountState,
    plan: ActionPlan,
    expiresAt: number,
    inclusionFee: bigint,
  ): Promise<PreparedInvocation | BuildRefusal> {
    try {
      return await this.assembler.assemble(account, plan.operation, new Date(expiresAt), inclusionFee);
    } catch (error) {
      if (!(error instanceof SimulationFailedError)) throw error;
      return simulationRefusal(error);
    }
  }

  private plan(
    request: BuildTransactionRequest,
    snapshot: PositionSnapshot,
    summary: PositionSummary,
    slippageBps: number,
  ): Promise<ActionPlan | BuildRefusal> | ActionPlan | BuildRefusal {
    switch (request.action) {
      case 'REPAY':
        return planRepay(request, summary, slippageBps, snapshot.balances.get(request.tokenId ?? ''));
      case 'LIQUIDATE':
        return planLiquidate(request, summary, slippageBps);
      case 'UNWIND':
        return this.unwind.plan(request, snapshot, slippageBps);
      case 'RESCUE':
        return planRescueAction(request, snapshot, slippageBps);
    }
  }
}

/**
 * UNWIND needs every balance of the position's tokens (they decide its route). REPAY reads its token's balance only
 * when the simulation says the wallet is short of the padded amount: the common case pays for no extra read. RESCUE
 * reads the auction with the position and every reserve token's balance (each may repay or become collateral).
 */
function balancesWanted(request: BuildTransactionRequest): BalancesWanted {
  if (request.action === 'RESCUE') {
    return { known: request.tokenId ? [request.tokenId] : [], auction: true, fromPosition: (pool) => (request.tokenId ? [] : pool.reserveList) };
  }
  if (request.action !== 'UNWIND') return { known: [] };
  return {
    known: [],
    auction: true,
    fromPosition: (pool: BlendPool, positions: Positions) => {
      const held = new Set([...positions.collateral.keys(), ...positions.liabilities.keys()]);
      return pool.reserveList.filter((_asset, index) => held.has(index));
    },
  };
}

function summarize(snapshot: PositionSnapshot, positions: Positions): PositionSummary | BuildRefusal {
  try {
    return summarizePositions(snapshot.pool.reserves, snapshot.prices, positions);
  } catch (error) {
    if (error instanceof MissingPriceError) return { code: 'PRICE_UNAVAILABLE', asset: error.asset };
    throw error;
  }
}

/** The token refused the transfer for want of balance (BalanceError, 10). */
const BALANCE_ERROR = 10;
function isShortOfBalance(prepared: PreparedInvocation | BuildRefusal): boolean {
  return 'code' in prepared && prepared.code === 'SIMULATION_FAILED' && prepared.contractError?.code === BALANCE_ERROR;
}

function simulationRefusal(error: SimulationFailedError): BuildRefusal {
  return {
    code: 'SIMULATION_FAILED',
    detail: error.message,
    ...(error.code !== undefined && { contractError: { code: error.code, name: error.errorName } }),
  };
}

/** When the oracle last priced each asset the position holds. */
function priceTimes(snapshot: PositionSnapshot, summary: PositionSummary): Map<string, bigint> {
  const times = new Map<string, bigint>();
  for (const row of summary.reserves) {
    const price = snapshot.prices.prices.get(row.asset);
    if (price && (row.collateral > 0n || row.liability > 0n)) times.set(row.asset, price.timestamp);
  }
  return times;
}

function decimalsOf(pool: BlendPool, asset: string): number {
  return pool.reserves.find((reserve) => reserve.asset === asset)?.config.decimals ?? 7;
}
