import type { LedgerNetwork } from '@rp/contracts';
import { Address } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { readContract } from '../transactions/contract-read';

/**
 * The official Blend v2 pool factory of each network (blend-capital/blend-utils `mainnet.contracts.json` and
 * `testnet.contracts.json`, `poolFactoryV2`). Blend's testnet is reset from time to time: set BLEND_POOL_FACTORY there.
 */
export const BLEND_POOL_FACTORY_V2: Readonly<Record<LedgerNetwork, string>> = {
  'ledger:pubnet': 'CDSYOAVXFY7SM5S64IZPPPYB4GVGGLMQVFREPSQQEZVIWXX5R23G4QSU',
  'ledger:testnet': 'CDV6RX4CGPCOKGTBFS52V3LMWQGZN3LCQTXF5RVPOOCG4XVMHXQ4NTF6',
};

/**
 * The Blend pool factory as the signing rule asks it: `is_pool(pool_address) -> bool` tells whether the factory
 * deployed that pool (read by simulation, nothing signed). The answer of a deployed pool never changes, so a `true`
 * is kept for good; a `false` is asked again after `negativeTtlMs` (a pool deployed since).
 */
export class PoolFactoryClient {
  private readonly known = new Map<string, { pool: boolean; at: number }>();

  constructor(
    private readonly rpc: LedgerRpc,
    readonly contractId: string,
    private readonly negativeTtlMs = 60_000,
  ) {}

  async isPool(pool: string): Promise<boolean> {
    const cached = this.known.get(pool);
    if (cached && (cached.pool || Date.now() - cached.at < this.negativeTtlMs)) return cached.pool;
    const value = await readContract(this.rpc, this.contractId, 'is_pool', [new Address(pool).toScVal()]);
    if (value.switch().name !== 'scvBool') throw new TypeError(`is_pool of ${this.contractId} returned no bool`);
    this.known.set(pool, { pool: value.b(), at: Date.now() });
    return value.b();
  }
}
