import { Account, Keypair, Operation, TransactionBuilder, hash, xdr } from '@stellar/stellar-sdk';
import {
  AUCTION_TYPES,
  type AuctionData,
  REQUEST_TYPES,
  blendPoolErrorName,
  decodeAuctionData,
  decodePositions,
  encodeRequest,
} from '@rp/ledger';
import { address, u32 } from '../contracts/scval';
import { sorobanDataFor } from '../ledger/execution';
import { BASE_FEE } from '../ledger/fees';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { BadRequestError } from '../server/http-io';
import { type SandboxSetup, UNIT } from './sandbox-setup';

/** The liquidator's account: derived, so it is the same in every run. */
export const SANDBOX_LIQUIDATOR = Keypair.fromRawEd25519Seed(hash(Buffer.from('rp-sandbox:liquidator')));
const LIQUIDATOR_FUNDS = 10_000n * UNIT;
const TX_TIMEOUT_SECONDS = 300;

export interface LiquidatorSubmission {
  readonly hash: string;
  /** `PENDING`: in the queue for the next ledger (`DUPLICATE` / errors answer 400 before this). */
  readonly status: string;
  readonly liquidator: string;
  readonly pool: string;
  readonly user: string;
  readonly percent: number;
}

export interface AuctionStarted extends LiquidatorSubmission {
  /** What the simulation of `new_auction` answered: the auction as it will be stored. */
  readonly auction: ReturnType<typeof auctionJson>;
}

/**
 * A liquidator of the sandbox's own: starts user liquidation auctions (`new_auction`) and fills them (request 6)
 * with real signed transactions that enter the queue like anyone's and land in the next ledger. Simulated first on
 * the next ledger's state, so a refusal (a healthy user, a fill before the auction starts) is a 400 with the pool's
 * error, and the transaction carries the footprint and authorization the simulation recorded.
 */
export class SandboxLiquidator {
  readonly address = SANDBOX_LIQUIDATOR.publicKey();
  /** pool -> users it started an auction against (listed by `GET /control/auctions`). */
  private readonly started = new Map<string, Set<string>>();

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly setup: SandboxSetup,
  ) {}

  /**
   * `new_auction(0, user, <every asset the user owes>, <every collateral asset>, percent)`. Without `percent`, the
   * largest one the pool accepts (v2 refuses a liquidation leaving the user above 1.15 or below 1.03).
   */
  startAuction(pool: string, user: string, percent?: number): AuctionStarted {
    const list = this.ledger.view(pool, 'get_reserve_list', []).vec() ?? [];
    const positions = decodePositions(this.ledger.view(pool, 'get_positions', [address(user)]));
    const assets = (book: ReadonlyMap<number, bigint>) =>
      [...book.keys()].flatMap((index) => (list[index] ? [list[index]] : []));
    const bid = xdr.ScVal.scvVec(assets(positions.liabilities));
    const lot = xdr.ScVal.scvVec(assets(positions.collateral));
    const args = (p: number) => [u32(AUCTION_TYPES.UserLiquidation), address(user), bid, lot, u32(p)];
    let chosen = percent;
    if (chosen === undefined) {
      for (let p = 100; p >= 1 && chosen === undefined; p -= 1)
        if (!this.simulate(pool, 'new_auction', args(p)).error) chosen = p;
      chosen ??= 100; // none passes: the submission below answers why
    }
    const { submission, returnValue } = this.submit(pool, 'new_auction', args(chosen), user, chosen);
    this.started.set(pool, (this.started.get(pool) ?? new Set()).add(user));
    return { ...submission, auction: auctionJson(decodeAuctionData(returnValue)) };
  }

  targets(pool: string): readonly string[] {
    return [...(this.started.get(pool) ?? [])];
  }

  /** After a reset: nothing was started. */
  forget(): void {
    this.started.clear();
  }

  /**
   * Request 6 for `percent` of the user's auction. The liquidator takes on the bid's debt, so it first gets enough
   * collateral of its own (minted and supplied, sandbox money) to stay healthy whatever the ramp.
   */
  fill(pool: string, user: string, percent = 100): LiquidatorSubmission {
    const args = [
      address(this.address),
      address(this.address),
      address(this.address),
      xdr.ScVal.scvVec([
        encodeRequest({
          requestType: REQUEST_TYPES.FillUserLiquidationAuction,
          address: user,
          amount: BigInt(percent),
        }),
      ]),
    ];
    this.ensureAccount();
    if (this.simulate(pool, 'submit', args).error?.message.includes('#1205')) this.collateralize(pool, user);
    return this.submit(pool, 'submit', args, user, percent).submission;
  }

  /** Twice the auction's bid, per asset, as the liquidator's collateral in that asset. */
  private collateralize(pool: string, user: string): void {
    const auction = decodeAuctionData(
      this.ledger.view(pool, 'get_auction', [u32(AUCTION_TYPES.UserLiquidation), address(user)]),
    );
    const supplyCollateral = [...auction.bid].map(([asset, dTokens]) => ({ asset, amount: dTokens * 2n + UNIT }));
    this.setup.openPosition(pool, { user: this.address, supplyCollateral });
  }

  private ensureAccount(): void {
    if (!this.ledger.account(this.address)) this.setup.fund(this.address, LIQUIDATOR_FUNDS, 'liquidator');
  }

  private simulate(pool: string, fn: string, args: xdr.ScVal[]) {
    this.ensureAccount();
    const draft = new TransactionBuilder(new Account(this.address, '0'), {
      fee: BASE_FEE.toString(),
      networkPassphrase: this.ledger.passphrase,
    })
      .addOperation(Operation.invokeContractFunction({ contract: pool, function: fn, args }))
      .setTimeout(0)
      .build();
    return this.ledger.simulate(draft.toEnvelope().toXDR('base64'));
  }

  private submit(pool: string, fn: string, args: xdr.ScVal[], user: string, percent: number) {
    const execution = this.simulate(pool, fn, args);
    if (execution.error) {
      const code = /#(\d+)/.exec(execution.error.message)?.[1];
      const name = code === undefined ? undefined : blendPoolErrorName(Number(code));
      throw new BadRequestError(`${fn} fails: ${execution.error.message}${name ? ` ${name}` : ''}`);
    }
    const account = this.ledger.account(this.address);
    if (!account) throw new BadRequestError('the liquidator has no account');
    const tx = new TransactionBuilder(new Account(this.address, account.sequence.toString()), {
      fee: BASE_FEE.toString(),
      networkPassphrase: this.ledger.passphrase,
    })
      .addOperation(Operation.invokeContractFunction({ contract: pool, function: fn, args, auth: [...execution.auth] }))
      .setSorobanData(sorobanDataFor(execution))
      .setTimebounds(0, Math.floor(Date.now() / 1000) + TX_TIMEOUT_SECONDS)
      .build();
    tx.sign(SANDBOX_LIQUIDATOR);
    const outcome = this.ledger.submit(tx.toEnvelope().toXDR('base64'));
    if (outcome.status !== 'PENDING') {
      throw new BadRequestError(
        `the liquidator's transaction was answered ${outcome.status}: try after the next ledger`,
      );
    }
    const submission = { hash: outcome.hash, status: outcome.status, liquidator: this.address, pool, user, percent };
    return { submission, returnValue: execution.returnValue ?? xdr.ScVal.scvVoid() };
  }
}

/** An auction as JSON: amounts as integer strings (bTokens in `lot`, dTokens in `bid`). */
export function auctionJson(auction: AuctionData) {
  const amounts = (book: ReadonlyMap<string, bigint>) =>
    Object.fromEntries([...book].map(([asset, amount]) => [asset, amount.toString()]));
  return { bid: amounts(auction.bid), lot: amounts(auction.lot), block: auction.block };
}
