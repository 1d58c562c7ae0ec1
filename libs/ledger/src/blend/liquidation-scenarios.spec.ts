import { StrKey } from '@stellar/stellar-sdk';
import { healthFactor, positionData } from './health';
import type { Positions, PriceData, Reserve } from './layouts';
import {
  fixedToDecimalString,
  largestCollateralAtOne,
  liquidationScenarios,
  scenariosOfPosition,
} from './liquidation-scenarios';
import { FRESH_RESERVE_DATA, SAMPLE_RESERVE_CONFIG } from './test-fixtures';

/**
 * Hand-computed positions. Fresh reserves (bRate = dRate = 1): b/dTokens are underlying amounts. Effective
 * collateral = amount x c_factor (floor), effective debt = amount / l_factor (ceil); values floor/ceil(price x
 * amount / 10^reserve decimals); HF = floor(C x 10^7 / L). "At most 1.0" is C x 10^7 < (10^7 + 1) x L.
 */

const contract = (byte: number) => StrKey.encodeContract(Buffer.alloc(32, byte));
const XLM = contract(1);
const USDC = contract(2);
const EURC = contract(3);
const UNIT = 10_000_000n;

const reserve = (asset: string, index: number, factor: number, decimals = 7): Reserve => ({
  asset,
  config: { ...SAMPLE_RESERVE_CONFIG, index, decimals, cFactor: factor, lFactor: factor },
  data: FRESH_RESERVE_DATA,
  scalar: 10n ** BigInt(decimals),
});

// XLM c/l 0.75, USDC 0.95, EURC 0.90 (index order).
const reserves = [reserve(XLM, 0, 7_500_000), reserve(USDC, 1, 9_500_000), reserve(EURC, 2, 9_000_000)];
const index = (asset: string) => reserves.findIndex((r) => r.asset === asset);

type Prices = Record<string, bigint>;
const PRICES: Prices = { [XLM]: 3_000_000n, [USDC]: UNIT, [EURC]: 10_800_000n };
const oracle = (prices: Prices, decimals = 7) => ({
  decimals,
  prices: new Map<string, PriceData>(Object.entries(prices).map(([a, price]) => [a, { price, timestamp: 1n }])),
});

function position(collateral: Record<string, bigint>, debt: Record<string, bigint>, of = index): Positions {
  const book = (amounts: Record<string, bigint>) => new Map(Object.entries(amounts).map(([a, n]) => [of(a), n]));
  return { collateral: book(collateral), liabilities: book(debt), supply: new Map() };
}

/** The pool's health factor with `asset` at `price`: the check every liquidation price must pass. */
function hfWith(rs: readonly Reserve[], prices: Prices, held: Positions, asset: string, price: bigint, decimals = 7) {
  const all = { ...prices, [asset]: price };
  return healthFactor(positionData(rs, held, (a) => all[a], decimals));
}

describe('largestCollateralAtOne', () => {
  it('is the largest C with floor(C x 10^7 / L) <= 10^7', () => {
    // L = 24_000_000_001: (10^7 + 1) x L / 10^7 = 24_000_002_401.0000001, ceil - 1 = 24_000_002_401.
    const debt = 24_000_000_001n;
    const largest = largestCollateralAtOne(debt);
    expect(largest).toBe(24_000_002_401n);
    expect((largest * UNIT) / debt).toBe(UNIT);
    expect(((largest + 1n) * UNIT) / debt).toBe(UNIT + 1n);
  });
});

describe('scenariosOfPosition', () => {
  it('two collateral assets, one debt: each price solved exactly, the drops, the buffer', () => {
    // 10 000 XLM at $0.30: effective 7 500 XLM, $2 250 (22_500_000_000). 500 USDC: effective 475, $475.
    // C = 27_250_000_000. Debt 2 000 EURC / 0.9 = ceil(22_222_222_222.2) = 22_222_222_223 at $1.08:
    // ceil(24_000_000_000.84) = L = 24_000_000_001. HF = floor(27_250_000_000 x 10^7 / L) = 11_354_166.
    const held = position({ [XLM]: 10_000n * UNIT, [USDC]: 500n * UNIT }, { [EURC]: 2_000n * UNIT });
    const scenarios = scenariosOfPosition(reserves, oracle(PRICES), held);
    // XLM: C may reach 24_000_002_401; T = that - 4_750_000_000 (USDC) = 19_250_002_401;
    // p = floor(((T + 1) x 10^7 - 1) / 75_000_000_000) = floor(2_566_666.98...) = 2_566_666 ($0.2566666).
    // USDC: T = 24_000_002_401 - 22_500_000_000 = 1_500_002_401; p = floor(15_000_024_019_999_999 / 4_750_000_000)
    // = 3_157_899 ($0.3157899: USDC would have to fall by two thirds).
    expect(scenarios.liquidationPrices).toEqual(
      new Map([
        [XLM, 2_566_666n],
        [USDC, 3_157_899n],
      ]),
    );
    expect(hfWith(reserves, PRICES, held, XLM, 2_566_666n)).toBe(9_999_997n);
    expect(hfWith(reserves, PRICES, held, XLM, 2_566_667n)).toBe(10_000_001n);
    expect(hfWith(reserves, PRICES, held, USDC, 3_157_899n)).toBe(10_000_000n);
    expect(hfWith(reserves, PRICES, held, USDC, 3_157_900n)).toBe(10_000_001n);
    // -10 %: XLM $0.27 -> 20_250_000_000, USDC $0.90 -> 4_275_000_000; C = 24_525_000_000;
    // HF = floor(24_525_000_000 x 10^7 / 24_000_000_001) = 10_218_749.
    expect(scenarios.healthFactorIf).toEqual(
      new Map([
        ['-5', 10_786_458n],
        ['-10', 10_218_749n],
        ['-20', 9_083_333n],
        ['-30', 7_947_916n],
      ]),
    );
    // 1 - 24_000_002_401 / 27_250_000_000 = 0.11926596...: the smallest 7-decimal drop is 0.1192659 (11.92659 %)
    // because each price is floored after the drop, which takes a hair more collateral off.
    expect(scenarios.liquidationBuffer).toBe(1_192_659n);
  });

  it('gives null to a collateral asset the other collateral covers the debt without', () => {
    // 3 000 USDC: effective 2 850, $2 850 = 28_500_000_000 > largest C at 1.0 (24_000_002_401): XLM at $0 is safe.
    const held = position({ [XLM]: 10_000n * UNIT, [USDC]: 3_000n * UNIT }, { [EURC]: 2_000n * UNIT });
    const scenarios = scenariosOfPosition(reserves, oracle(PRICES), held);
    // USDC: T = 24_000_002_401 - 22_500_000_000 = 1_500_002_401; p = floor(15_000_024_019_999_999 / 28_500_000_000).
    expect(scenarios.liquidationPrices).toEqual(
      new Map([
        [XLM, null],
        [USDC, 526_316n],
      ]),
    );
    expect(hfWith(reserves, PRICES, held, XLM, 0n)).toBeGreaterThan(UNIT);
  });

  it('a collateral asset that is also borrowed: both sides move with its price', () => {
    // 10 000 XLM collateral (7 500 effective) and 1 000 XLM debt (1 000 / 0.75 = 1 333.3333334 effective), 500 USDC
    // debt (500 / 0.95 = 526.3157895, $526.3157895). HF at $0.30 = 22_500_000_000 / (4_000_000_001 + 5_263_157_895)
    // = 2.4289772. HF = 1 where 7 500 p = 1 333.3333334 p + 526.3157895: p = 526.3157895 / 6 166.6666666 = $0.0853485.
    const held = position({ [XLM]: 10_000n * UNIT }, { [XLM]: 1_000n * UNIT, [USDC]: 500n * UNIT });
    const scenarios = scenariosOfPosition(reserves, oracle(PRICES), held);
    expect(scenarios.liquidationPrices).toEqual(new Map([[XLM, 853_485n]]));
    expect(hfWith(reserves, PRICES, held, XLM, 853_485n)).toBe(9_999_999n);
    expect(hfWith(reserves, PRICES, held, XLM, 853_486n)).toBe(10_000_009n);
    // -30 %: XLM $0.21 on both sides: C = 15_750_000_000, L = 2_800_000_001 + 5_263_157_895; HF 1.9533289.
    expect(scenarios.healthFactorIf.get('-30')).toBe(19_533_289n);
    expect(scenarios.liquidationBuffer).toBe(7_155_047n);
  });

  it('a collateral asset whose debt outweighs it is liquidated by its price rising; a uniform drop never gets there', () => {
    // 1 000 XLM collateral (750 effective) and 3 000 USDC (2 850 effective) against 5 000 XLM debt (6 666.6666667
    // effective). HF = 1 where 750 p + 2 850 = 6 666.6666667 p: p = 2 850 / 5 916.6666667 = $0.4816901 (up from
    // $0.30): the lowest price at which the HF is at most 1.0. A uniform drop moves the XLM debt too: the HF stays.
    const held = position({ [XLM]: 1_000n * UNIT, [USDC]: 3_000n * UNIT }, { [XLM]: 5_000n * UNIT });
    const scenarios = scenariosOfPosition(reserves, oracle(PRICES), held);
    expect(scenarios.liquidationPrices.get(XLM)).toBe(4_816_901n);
    expect(hfWith(reserves, PRICES, held, XLM, 4_816_901n)).toBe(10_000_000n);
    expect(hfWith(reserves, PRICES, held, XLM, 4_816_900n)).toBe(10_000_002n);
    // USDC is collateral only: T = ceil(20_000_000_001 x (10^7 + 1) / 10^7) - 1 - 750 x $0.30.
    expect(scenarios.liquidationPrices.get(USDC)).toBe(6_228_070n);
    expect([...scenarios.healthFactorIf.values()]).toEqual([15_374_999n, 15_374_999n, 15_374_999n, 15_374_999n]);
    expect(scenarios.liquidationBuffer).toBeNull();
  });

  it('without debt: every liquidation price, scenario and the buffer are null', () => {
    const scenarios = scenariosOfPosition(reserves, oracle(PRICES), position({ [XLM]: 10_000n * UNIT }, {}));
    expect(scenarios).toEqual({
      liquidationPrices: new Map([[XLM, null]]),
      healthFactorIf: new Map([
        ['-5', null],
        ['-10', null],
        ['-20', null],
        ['-30', null],
      ]),
      liquidationBuffer: null,
    });
  });

  it('already below 1.0: the buffer is 0 and the liquidation price is above the current price', () => {
    // 10 000 XLM ($2 250 effective) against 2 400 USDC (2 526.3157895): HF 0.8906249. XLM must be above
    // 25_263_157_895 x (10^7 + 1) / 10^7 / 7 500 = $0.3368421 for the HF to pass 1.0.
    const held = position({ [XLM]: 10_000n * UNIT }, { [USDC]: 2_400n * UNIT });
    const scenarios = scenariosOfPosition(reserves, oracle(PRICES), held);
    expect(scenarios.liquidationBuffer).toBe(0n);
    expect(scenarios.liquidationPrices.get(XLM)).toBe(3_368_421n);
    expect(hfWith(reserves, PRICES, held, XLM, 3_368_422n)).toBe(10_000_002n);
    expect(scenarios.healthFactorIf.get('-5')).toBe(8_460_937n);
  });

  it('with an 8-decimal collateral, a 6-decimal debt and a 14-decimal oracle', () => {
    // 0.5 BTC (8 decimals) c 0.70 at $60 000: effective 35_000_000 sats, C = floor(6e18 x 35e6 / 10^8) = 2.1e18
    // ($21 000). 15 000 USDC (6 decimals) l 0.95: ceil(15e9 x 10^7 / 9.5e6) = 15_789_473_685, at $1 (10^14):
    // L = ceil(10^14 x 15_789_473_685 / 10^6) = 1_578_947_368_500_000_000 ($15 789.473685). HF 1.3299999.
    // Largest C = ceil(L x (10^7 + 1) / 10^7) - 1 = 1_578_947_526_394_736_850 - 1 (L x (10^7 + 1) / 10^7 is exact
    // here, so ceil - 1 is one below it); p = floor((that + 1) x 10^8 - 1) / 35e6) = 4_511_278_646_842_105_285
    // ($45 112.78646842105285).
    const BTC = contract(4);
    const USDC6 = contract(5);
    const rs = [reserve(BTC, 0, 7_000_000, 8), reserve(USDC6, 1, 9_500_000, 6)];
    const of = (a: string) => rs.findIndex((r) => r.asset === a);
    const prices: Prices = { [BTC]: 60_000n * 10n ** 14n, [USDC6]: 10n ** 14n };
    const held = position({ [BTC]: 50_000_000n }, { [USDC6]: 15_000_000_000n }, of);
    const scenarios = scenariosOfPosition(rs, oracle(prices, 14), held);
    expect(scenarios.liquidationPrices.get(BTC)).toBe(4_511_278_646_842_105_285n);
    expect(hfWith(rs, prices, held, BTC, 4_511_278_646_842_105_285n, 14)).toBe(10_000_000n);
    expect(hfWith(rs, prices, held, BTC, 4_511_278_646_842_105_286n, 14)).toBe(10_000_001n);
    expect(scenarios.healthFactorIf.get('-20')).toBe(10_639_999n);
    expect(scenarios.liquidationBuffer).toBe(2_481_203n);
    expect(liquidationScenarios(rs, oracle(prices, 14), held)).toEqual({
      liquidationPrices: { [BTC]: '45112.78646842105285' },
      healthFactorIf: { '-5': 1.2634999, '-10': 1.1969999, '-20': 1.0639999, '-30': 0.9309999 },
      liquidationBuffer: 24.81203,
    });
  });
});

describe('fixedToDecimalString', () => {
  it.each([
    [2_566_666n, 7, '0.2566666'],
    [30_000_000n, 7, '3.0000000'],
    [0n, 7, '0.0000000'],
    [-5n, 2, '-0.05'],
    [42n, 0, '42'],
  ] as const)('%s with %s decimals is %s', (value, decimals, text) => {
    expect(fixedToDecimalString(value, decimals)).toBe(text);
  });
});
