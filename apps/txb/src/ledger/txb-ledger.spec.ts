import { loadConfig } from '@rp/platform';
import { Registry } from 'prom-client';
import { TxbConfig } from '../config/txb.config';
import { LedgerNotConfiguredError, TxbLedger } from './txb-ledger';

const ledgerFor = (env: Record<string, string>) => new TxbLedger(loadConfig(TxbConfig, env), new Registry());

describe('TxbLedger', () => {
  const ledger = ledgerFor({
    CONTRACT_RPC_URL: 'http://127.0.0.1:4000/rpc',
    TXB_ALLOWED_RPC_URLS: 'https://soroban-testnet.stellar.org,http://127.0.0.1:4001/rpc',
  });

  it('allows only listed RPC URLs, compared as parsed URLs', () => {
    expect(ledger.isAllowedRpcUrl('https://soroban-testnet.stellar.org')).toBe(true);
    expect(ledger.isAllowedRpcUrl('https://SOROBAN-TESTNET.stellar.org/')).toBe(true);
    expect(ledger.isAllowedRpcUrl('http://127.0.0.1:4001/rpc')).toBe(true);
    expect(ledger.isAllowedRpcUrl('http://127.0.0.1:4001/rpc/other')).toBe(false);
    expect(ledger.isAllowedRpcUrl('https://evil.example/rpc')).toBe(false);
    expect(ledger.isAllowedRpcUrl('not a url')).toBe(false);
  });

  it('gives the configured RPC for anything not listed, never a client for an arbitrary URL', () => {
    expect(ledger.rpcFor('https://evil.example/rpc')).toBe(ledger.rpc());
    expect(ledger.rpcFor(undefined)).toBe(ledger.rpc());
    const listed = ledger.rpcFor('http://127.0.0.1:4001/rpc');
    expect(listed).not.toBe(ledger.rpc());
    expect(ledger.rpcFor('http://127.0.0.1:4001/rpc')).toBe(listed);
  });

  it('is absent as a whole without CONTRACT_RPC_URL', () => {
    const none = ledgerFor({});
    expect(none.configured).toBe(false);
    expect(() => none.rpc()).toThrow(LedgerNotConfiguredError);
    expect(none.receiver).toBeDefined();
  });
});
