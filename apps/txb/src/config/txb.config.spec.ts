import { loadConfig } from '@rp/platform';
import { TxbConfig } from './txb.config';

describe('txb settings', () => {
  it('keeps proposals 5 minutes and allows no caller-chosen RPC by default', () => {
    expect(loadConfig(TxbConfig, {})).toMatchObject({
      PORT: 3002,
      PROPOSAL_TTL_SECONDS: 300,
      TXB_ALLOWED_RPC_URLS: [],
      TXB_MAX_INCLUSION_FEE_STROOPS: 1_000_000,
    });
    expect(loadConfig(TxbConfig, { TXB_MAX_INCLUSION_FEE_STROOPS: '5000' }).TXB_MAX_INCLUSION_FEE_STROOPS).toBe(5000);
  });

  it('reads the allowed RPC URLs as a comma-separated list', () => {
    const config = loadConfig(TxbConfig, {
      TXB_ALLOWED_RPC_URLS: 'https://soroban-testnet.stellar.org, http://127.0.0.1:4000/rpc',
    });
    expect(config.TXB_ALLOWED_RPC_URLS).toEqual(['https://soroban-testnet.stellar.org', 'http://127.0.0.1:4000/rpc']);
  });

  it.each([
    [{ TXB_ALLOWED_RPC_URLS: 'https://ok.example,ftp://nope' }, 'TXB_ALLOWED_RPC_URLS must be a comma-separated list'],
    [
      { TXB_UNWIND_RECEIVER: 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6' },
      'TXB_UNWIND_RECEIVER must be a valid contract C-address',
    ],
    [{ TXB_MAX_INCLUSION_FEE_STROOPS: '99' }, 'TXB_MAX_INCLUSION_FEE_STROOPS must be a whole number of stroops'],
    [{ TXB_MAX_INCLUSION_FEE_STROOPS: '1.5' }, 'TXB_MAX_INCLUSION_FEE_STROOPS must be a whole number of stroops'],
    [{ PROPOSAL_TTL_SECONDS: '5' }, 'PROPOSAL_TTL_SECONDS must be an integer of at least 30'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(TxbConfig, env)).toThrow(message);
  });
});
