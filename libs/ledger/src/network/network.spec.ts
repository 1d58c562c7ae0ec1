import { LEDGER_NETWORKS } from '@rp/contracts';
import { Networks, StrKey } from '@stellar/stellar-sdk';
import { createHash } from 'node:crypto';
import { isAccountAddress, isContractAddress, isHolderAddress } from './addresses';
import { InvalidRpcUrlError, parseFallbackRpcUrls } from './endpoints';
import {
  UnsupportedNetworkError,
  caip2Of,
  networkFromCaip2,
  networkFromPassphrase,
  networkId,
  networkPassphrase,
} from './ledger-network';
import { USDC_CONTRACT, usdcContract } from './usdc';

describe('ledger networks', () => {
  it('maps each network to its passphrase and CAIP-2 id and back', () => {
    expect(networkPassphrase('ledger:pubnet')).toBe(Networks.PUBLIC);
    expect(networkPassphrase('ledger:testnet')).toBe(Networks.TESTNET);
    expect(caip2Of('ledger:pubnet')).toBe('stellar:pubnet');
    expect(caip2Of('ledger:testnet')).toBe('stellar:testnet');
    for (const network of LEDGER_NETWORKS) {
      expect(networkFromPassphrase(networkPassphrase(network))).toBe(network);
      expect(networkFromCaip2(caip2Of(network))).toBe(network);
    }
  });

  it('refuses unknown passphrases and ids', () => {
    expect(() => networkFromPassphrase(Networks.FUTURENET)).toThrow(UnsupportedNetworkError);
    expect(() => networkFromCaip2('stellar:futurenet')).toThrow(UnsupportedNetworkError);
    expect(() => networkFromCaip2('eip155:1')).toThrow(UnsupportedNetworkError);
  });

  it('computes the network id as sha256 of the passphrase', () => {
    const id = networkId(Networks.PUBLIC);
    expect(Buffer.isBuffer(id)).toBe(true);
    expect(id.toString('hex')).toBe(createHash('sha256').update(Networks.PUBLIC).digest('hex'));
    expect(id.toString('hex')).toBe('7ac33997544e3175d266bd022439b22cdb16508c01163f26e5cb2a3e1045a979');
  });

  it('knows the USDC contract of each network', () => {
    expect(usdcContract('ledger:pubnet')).toBe('CCW67TSZV3SSS2HXMBQ5JFGCKJNXKZM7UQUWUZPUTHXSTZLEO7SJMI75');
    expect(usdcContract('ledger:testnet')).toBe('CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA');
    for (const id of Object.values(USDC_CONTRACT)) expect(isContractAddress(id)).toBe(true);
  });
});

describe('addresses', () => {
  const account = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
  const contract = StrKey.encodeContract(Buffer.alloc(32, 7));

  it('tells accounts from contracts, checksums included', () => {
    expect(isAccountAddress(account)).toBe(true);
    expect(isAccountAddress(contract)).toBe(false);
    expect(isAccountAddress(`${account.slice(0, -1)}7`)).toBe(false);
    expect(isContractAddress(contract)).toBe(true);
    expect(isContractAddress(account)).toBe(false);
    expect(isHolderAddress(account) && isHolderAddress(contract)).toBe(true);
    expect(isHolderAddress(42)).toBe(false);
  });
});

describe('parseFallbackRpcUrls', () => {
  it('splits, trims, drops blanks and duplicates, keeps order', () => {
    expect(parseFallbackRpcUrls(' https://a.example/rpc , ,http://b.example:8000,https://a.example/rpc')).toEqual([
      'https://a.example/rpc',
      'http://b.example:8000',
    ]);
    expect(parseFallbackRpcUrls(undefined)).toEqual([]);
    expect(parseFallbackRpcUrls('')).toEqual([]);
  });

  it('rejects non-http URLs without echoing them', () => {
    const error = (() => {
      try {
        parseFallbackRpcUrls('https://ok.example,ftp://user:secret@host');
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidRpcUrlError);
    expect(error?.message).not.toContain('secret');
    expect(() => parseFallbackRpcUrls('not a url')).toThrow(InvalidRpcUrlError);
  });
});
