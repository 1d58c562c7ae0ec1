import type { ReserveConfig, ReserveData } from './layouts';

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
