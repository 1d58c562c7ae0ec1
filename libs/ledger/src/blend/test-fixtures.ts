import { StrKey } from '@stellar/stellar-sdk';
import type { Reserve, ReserveConfig, ReserveData } from './layouts';

/** Reserve parameters shared by the blend specs (and handy for sandbox scenarios). */
export const SAMPLE_RESERVE_CONFIG: ReserveConfig = {
  index: 0,
  decimals: 7,
  cFactor: 9_000_000,
  lFactor: 8_000_000,
  util: 5_000_000,
  maxUtil: 9_500_000,
  rBase: 100_000,
  rOne: 500_000,
  rTwo: 5_000_000,
  rThree: 15_000_000,
  reactivity: 20,
  supplyCap: 1_000_000_000_0000000n,
  enabled: true,
};

export const FRESH_RESERVE_DATA: ReserveData = {
  dRate: 1_000_000_000_000n,
  bRate: 1_000_000_000_000n,
  irMod: 10_000_000n,
  bSupply: 0n,
  dSupply: 0n,
  backstopCredit: 0n,
  lastTime: 0n,
};

/** A contract address made of one repeated byte: stable, distinct addresses for specs. */
export const fixtureContract = (seed: number): string => StrKey.encodeContract(Buffer.alloc(32, seed));

/** A reserve with rates a little above 1, as a pool that has run for a while has them, so roundings show. */
export function agedReserve(asset: string, index: number, cFactor: number, lFactor: number): Reserve {
  return {
    asset,
    config: { ...SAMPLE_RESERVE_CONFIG, index, cFactor, lFactor },
    data: { ...FRESH_RESERVE_DATA, bRate: 1_000_300_000_007n, dRate: 1_000_900_000_013n },
    scalar: 10_000_000n,
  };
}

/** USDC ($1, factors 0.95), XLM ($0.30, 0.75) and EURC ($1.10, 0.90): the planners' specs' pool, 7-decimal oracle. */
export function threeReservePool() {
  const [usdc, xlm, eurc] = [fixtureContract(1), fixtureContract(2), fixtureContract(3)];
  return {
    usdc,
    xlm,
    eurc,
    reserves: [agedReserve(usdc, 0, 9_500_000, 9_500_000), agedReserve(xlm, 1, 7_500_000, 7_500_000), agedReserve(eurc, 2, 9_000_000, 9_000_000)],
    prices: {
      decimals: 7,
      prices: new Map([
        [usdc, { price: 10_000_000n, timestamp: 0n }],
        [xlm, { price: 3_000_000n, timestamp: 0n }],
        [eurc, { price: 11_000_000n, timestamp: 0n }],
      ]),
    },
  };
}
