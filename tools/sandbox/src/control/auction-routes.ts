import { StrKey } from '@stellar/stellar-sdk';
import { type AuctionData, auctionLedgerKey, auctionModifiers, decodeAuctionData } from '@rp/ledger';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import { BadRequestError } from '../server/http-io';
import type { SandboxDirectory } from './directory';
import { type SandboxLiquidator, auctionJson } from './sandbox-liquidator';

type Body = Record<string, unknown>;
export interface AuctionRoute {
  readonly method: string;
  readonly pattern: RegExp;
  readonly run: (body: Body, params: string[]) => unknown;
}

const POOL = '(C[A-Z2-7]{55})';
const USER = '(G[A-Z2-7]{55})';

/**
 * Control routes of user liquidation auctions, carried out by the sandbox's liquidator as real transactions that
 * land in the next ledger: start one against a wallet, fill one (request 6), and list the live ones with where
 * their ramp stands.
 */
export function auctionRoutes(
  ledger: SandboxLedger,
  directory: SandboxDirectory,
  liquidator: SandboxLiquidator,
): AuctionRoute[] {
  const auctionOf = (pool: string, user: string): AuctionData | undefined => {
    const entry = ledger.entry(auctionLedgerKey(pool, user));
    return entry ? decodeAuctionData(entry.data.contractData().val()) : undefined;
  };
  const view = (pool: string, user: string, auction: AuctionData) => {
    // Where a fill in the next ledger would stand on the ramp.
    const ledgers = ledger.latest.sequence + 1 - auction.block;
    const modifiers = ledgers < 0 ? { lot: 0n, bid: 10_000_000n } : auctionModifiers(ledgers);
    return {
      pool,
      user,
      ...auctionJson(auction),
      ledgersSinceStart: ledgers,
      lotPercent: Number(modifiers.lot) / 100_000,
      bidPercent: Number(modifiers.bid) / 100_000,
    };
  };
  return [
    {
      method: 'GET',
      pattern: /^\/control\/auctions$/,
      run: () =>
        directory.pools.flatMap((pool) =>
          [...new Set([...directory.accounts.map((a) => a.address), ...liquidator.targets(pool.contractId)])].flatMap(
            (user) => {
              const auction = auctionOf(pool.contractId, user);
              return auction ? [view(pool.contractId, user, auction)] : [];
            },
          ),
        ),
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/control/pools/${POOL}/auctions$`),
      run: (body, [pool]) => liquidator.startAuction(known(directory, pool), user(body.user), percent(body.percent)),
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/control/pools/${POOL}/auctions/${USER}$`),
      run: (_body, [pool, wallet]) => {
        const auction = auctionOf(known(directory, pool), wallet);
        return { auction: auction ? view(pool, wallet, auction) : null, ledger: ledger.latest.sequence };
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/control/pools/${POOL}/auctions/${USER}/fill$`),
      run: (body, [pool, wallet]) => liquidator.fill(known(directory, pool), wallet, percent(body.percent) ?? 100),
    },
  ];
}

function known(directory: SandboxDirectory, pool: string): string {
  if (!directory.pool(pool)) throw new BadRequestError(`no pool ${pool} in the sandbox`);
  return pool;
}

function user(value: unknown): string {
  if (typeof value !== 'string' || !StrKey.isValidEd25519PublicKey(value)) {
    throw new BadRequestError('user must be a G-address');
  }
  return value;
}

function percent(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100) {
    throw new BadRequestError('percent must be an integer from 1 to 100');
  }
  return value;
}
