import { Keypair, xdr } from '@stellar/stellar-sdk';
import { decodePriceData, encodeOracleAsset } from '@rp/ledger';
import { SandboxLedger } from '../../ledger/sandbox-ledger';
import { ORACLE_CONTRACT } from '../oracle';
import { address, i128, string, toAddress, toBigInt, u32 } from '../scval';
import { TOKEN_CONTRACT } from '../token';
import { SWAP_RECEIVER_CONTRACT } from './swap-receiver.contract';

describe('oracle and swap receiver', () => {
  const ledger = new SandboxLedger();
  const admin = Keypair.random().publicKey();
  const token = (symbol: string, decimals: number) =>
    ledger.deployContract(TOKEN_CONTRACT, {
      salt: symbol,
      constructorArgs: [address(admin), u32(decimals), string(symbol), string(symbol)],
    });
  const xlm = token('XLM', 7);
  const usdc = token('USDC', 6);
  const oracle = ledger.deployContract(ORACLE_CONTRACT, {
    salt: 'oracle',
    constructorArgs: [address(admin), encodeOracleAsset({ other: 'USD' }), u32(7), u32(300)],
  });
  ledger.invokePrivileged(oracle, 'set_price', [encodeOracleAsset({ stellar: xlm }), i128(1_200_000n)]);
  ledger.invokePrivileged(oracle, 'set_price', [encodeOracleAsset({ stellar: usdc }), i128(10_000_000n)]);
  const receiver = ledger.deployContract(SWAP_RECEIVER_CONTRACT, {
    salt: 'rx',
    constructorArgs: [address(admin), address(oracle), u32(30)],
  });
  ledger.invokePrivileged(receiver, 'set_route', [address(xlm), address(usdc)]);

  it('answers SEP-40 reads', () => {
    expect(decodePriceData(ledger.view(oracle, 'lastprice', [encodeOracleAsset({ stellar: xlm })])).price).toBe(
      1_200_000n,
    );
    expect(ledger.view(oracle, 'lastprice', [encodeOracleAsset({ other: 'BTC' })]).switch().name).toBe('scvVoid');
    expect(ledger.view(oracle, 'decimals', []).u32()).toBe(7);
    expect(ledger.view(oracle, 'assets', []).vec()).toHaveLength(2);
  });

  it('quotes at oracle prices less the fee, across decimals', () => {
    // 100 XLM x 0.12 = 12 USDC (6 decimals) less 0.3% = 11.964
    expect(toBigInt(ledger.view(receiver, 'quote', [address(xlm), i128(100_0000000n)]))).toBe(11_964_000n);
  });

  it('says what it sells a token for, and nothing for a token it has no route for', () => {
    expect(ledger.view(receiver, 'route', [address(xlm)]).switch().name).toBe('scvAddress');
    expect(toAddress(ledger.view(receiver, 'route', [address(xlm)]))).toBe(usdc);
    expect(ledger.view(receiver, 'route', [address(usdc)]).switch().name).toBe('scvVoid');
  });

  it('refuses exec_op from an account and unknown functions', () => {
    const caller = Keypair.random().publicKey();
    expect(() =>
      ledger.invokePrivileged(receiver, 'exec_op', [address(caller), address(xlm), i128(1n), i128(0n)]),
    ).toThrow();
    expect(() => ledger.invokePrivileged(receiver, 'nope', [] as xdr.ScVal[])).toThrow(/#1\b|Contract/);
  });
});
