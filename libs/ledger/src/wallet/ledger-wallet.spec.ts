import {
  Account,
  Address,
  Keypair,
  Networks,
  Operation,
  StrKey,
  TransactionBuilder,
  authorizeEntry,
  hash,
  xdr,
} from '@stellar/stellar-sdk';
import { inspect } from 'node:util';
import { LedgerWallet, SignerMismatchError, InvalidSigningInputError } from './ledger-wallet';
import { InvalidMnemonicError, isValidMnemonic } from './mnemonic';
import { InvalidDerivationIndexError } from './slip10';

const MNEMONIC = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';
const ADDRESS = 'GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6';
const SECRET = 'SBGWSG6BTNCKCOB3DIFBGCVMUPQFYPA2G4O34RMTB343OYPXU5DJDVMN';
const WORDS = MNEMONIC.split(' ');

/** True when `text` holds the secret seed, its raw bytes, or any two consecutive words of the mnemonic. */
function leaksSecret(text: string): boolean {
  const raw = Keypair.fromSecret(SECRET).rawSecretKey();
  if (text.includes(SECRET) || text.includes(raw.toString('hex')) || text.includes(raw.toString('base64'))) return true;
  return WORDS.some((word, i) => i + 1 < WORDS.length && text.toLowerCase().includes(`${word} ${WORDS[i + 1]}`));
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function errorText(error: unknown): string {
  const e = error as Error & { cause?: unknown };
  return [
    String(e),
    e.stack ?? '',
    inspect(e, { depth: 10, showHidden: true }),
    JSON.stringify(e),
    String(e.cause),
  ].join('\n');
}

describe('LedgerWallet', () => {
  const wallet = LedgerWallet.fromMnemonic(MNEMONIC);

  it('derives the primary key by default and accepts untidy input', () => {
    expect(wallet.address).toBe(ADDRESS);
    expect(LedgerWallet.fromMnemonic(`  ${MNEMONIC.toUpperCase().replace(/ /g, '  \n')} `).address).toBe(ADDRESS);
  });

  it('exposes no key material', () => {
    const names = [...Object.getOwnPropertyNames(wallet), ...Object.getOwnPropertyNames(LedgerWallet.prototype)];
    expect(names).not.toContain('keypairForSigning');
    expect(names.filter((n) => /secret|seed|mnemonic|keypair|private/i.test(n))).toEqual([]);
    expect((wallet as unknown as Record<string, unknown>)['keypairForSigning']).toBeUndefined();
  });

  it('has a leak detector that would catch the mnemonic or the secret', () => {
    expect(leaksSecret(`x ${WORDS[3]} ${WORDS[4]} y`)).toBe(true);
    expect(leaksSecret(SECRET)).toBe(true);
    expect(leaksSecret(ADDRESS)).toBe(false);
  });

  it('prints only its address: JSON, inspect, template strings, String()', () => {
    const renderings = [
      JSON.stringify(wallet),
      JSON.stringify({ nested: { wallet } }),
      inspect(wallet, { depth: 10, showHidden: true }),
      inspect({ wallet }, { depth: 10, showHidden: true }),
      `${wallet}`,
      String(wallet),
    ];
    for (const text of renderings) {
      expect(text).toContain(ADDRESS);
      expect(leaksSecret(text)).toBe(false);
    }
    expect(JSON.parse(JSON.stringify(wallet))).toEqual({ address: ADDRESS });
  });

  it('rejects a bad mnemonic with a typed error that does not repeat it', () => {
    const typo = MNEMONIC.replace('toe', 'toes');
    const badChecksum = MNEMONIC.replace('toe', 'zoo');
    for (const phrase of [typo, badChecksum, WORDS.slice(0, 11).join(' '), '']) {
      const error = thrown(() => LedgerWallet.fromMnemonic(phrase));
      expect(error).toBeInstanceOf(InvalidMnemonicError);
      expect(leaksSecret(errorText(error))).toBe(false);
      expect(errorText(error)).not.toContain('toes');
    }
    expect(isValidMnemonic(MNEMONIC)).toBe(true);
    expect(isValidMnemonic(badChecksum)).toBe(false);
  });

  it('rejects indexes outside the hardened range', () => {
    for (const index of [-1, 1.5, 2 ** 31, Number.NaN]) {
      expect(() => LedgerWallet.fromMnemonic(MNEMONIC, { index })).toThrow(InvalidDerivationIndexError);
    }
  });

  it('signing errors do not leak the key', () => {
    const errors = [
      thrown(() => wallet.signHash(Buffer.alloc(31))),
      thrown(() => wallet.signHash('not bytes' as unknown as Uint8Array)),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(InvalidSigningInputError);
      expect(leaksSecret(errorText(error))).toBe(false);
    }
  });

  it('signs a transaction for its network', () => {
    const tx = new TransactionBuilder(new Account(ADDRESS, '1'), { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(Operation.bumpSequence({ bumpTo: '10' }))
      .setTimeout(30)
      .build();
    expect(wallet.signTransaction(tx)).toBe(tx);
    expect(tx.signatures).toHaveLength(1);
    expect(Keypair.fromPublicKey(ADDRESS).verify(tx.hash(), tx.signatures[0].signature())).toBe(true);
  });

  it('signs an envelope handed to it as XDR, for the network named', () => {
    const tx = new TransactionBuilder(new Account(ADDRESS, '1'), { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(Operation.bumpSequence({ bumpTo: '10' }))
      .setTimeout(30)
      .build();
    const signed = TransactionBuilder.fromXDR(
      wallet.signTransactionXdr(tx.toXDR(), Networks.TESTNET),
      Networks.TESTNET,
    );
    expect(signed.signatures).toHaveLength(1);
    expect(Keypair.fromPublicKey(ADDRESS).verify(tx.hash(), signed.signatures[0].signature())).toBe(true);
    const elsewhere = TransactionBuilder.fromXDR(
      wallet.signTransactionXdr(tx.toXDR(), Networks.PUBLIC),
      Networks.TESTNET,
    );
    expect(Keypair.fromPublicKey(ADDRESS).verify(tx.hash(), elsewhere.signatures[0].signature())).toBe(false);
  });

  describe('signAuthEntry', () => {
    const entry = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
        new xdr.SorobanAddressCredentials({
          address: Address.fromString(ADDRESS).toScAddress(),
          nonce: new xdr.Int64(7),
          signatureExpirationLedger: 0,
          signature: xdr.ScVal.scvVoid(),
        }),
      ),
      rootInvocation: new xdr.SorobanAuthorizedInvocation({
        function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
          new xdr.InvokeContractArgs({
            contractAddress: Address.fromString(StrKey.encodeContract(Buffer.alloc(32, 1))).toScAddress(),
            functionName: 'transfer',
            args: [],
          }),
        ),
        subInvocations: [],
      }),
    });

    it('works as the callback authorizeEntry is given by AssembledTransaction.signAuthEntries', async () => {
      // Same adapter as the SDK's signAuthEntries: preimage as base64 in, signature bytes out.
      const signed = await authorizeEntry(
        entry,
        async (preimage) => {
          const { signedAuthEntry, signerAddress } = await wallet.signAuthEntry(preimage.toXDR('base64'), {
            address: ADDRESS,
          });
          expect(signerAddress).toBe(ADDRESS);
          return Buffer.from(signedAuthEntry, 'base64');
        },
        1234,
        Networks.TESTNET,
      );
      const credentials = signed.credentials().address();
      expect(credentials.signatureExpirationLedger()).toBe(1234);
      expect(credentials.signature().switch().name).toBe('scvVec');
    });

    it('refuses another signer and payloads that are not Soroban authorizations', async () => {
      const other = Keypair.random().publicKey();
      const preimage = xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
        new xdr.HashIdPreimageSorobanAuthorization({
          networkId: hash(Buffer.from(Networks.TESTNET)),
          nonce: new xdr.Int64(1),
          signatureExpirationLedger: 10,
          invocation: entry.rootInvocation(),
        }),
      ).toXDR('base64');
      await expect(wallet.signAuthEntry(preimage, { address: other })).rejects.toBeInstanceOf(SignerMismatchError);
      const txPreimage = xdr.HashIdPreimage.envelopeTypeOpId(
        new xdr.HashIdPreimageOperationId({
          sourceAccount: Keypair.fromPublicKey(ADDRESS).xdrAccountId(),
          seqNum: new xdr.Int64(1),
          opNum: 0,
        }),
      ).toXDR('base64');
      await expect(wallet.signAuthEntry(txPreimage)).rejects.toBeInstanceOf(InvalidSigningInputError);
      await expect(wallet.signAuthEntry('%%%')).rejects.toBeInstanceOf(InvalidSigningInputError);
    });
  });
});
