import { Account, Keypair, Networks, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { checkSignature, parseEnvelope } from './signed-envelope';

const wallet = Keypair.random();

function draft(passphrase: string = Networks.TESTNET): Transaction {
  return new TransactionBuilder(new Account(wallet.publicKey(), '41'), { fee: '100', networkPassphrase: passphrase })
    .addOperation(Operation.bumpSequence({ bumpTo: '50' }))
    .setTimeout(60)
    .build();
}

describe('parseEnvelope', () => {
  it('reads an envelope on the given network, with the hash the network gives it whatever the signatures', () => {
    const tx = draft();
    const unsigned = tx.toXDR();
    tx.sign(wallet);
    const parsed = parseEnvelope(tx.toXDR(), Networks.TESTNET);
    expect(parsed).toMatchObject({ ok: true, hash: tx.hash().toString('hex') });
    expect(parseEnvelope(unsigned, Networks.TESTNET)).toMatchObject({ ok: true, hash: tx.hash().toString('hex') });
  });

  it.each([
    ['not base64 XDR at all', 'hello'],
    ['base64 of something else', Buffer.from('{"transaction":1}').toString('base64')],
    ['a truncated envelope', draft().toXDR().slice(0, 40)],
    ['the empty string', ''],
  ])('refuses %s as malformed', (_name, value) => {
    expect(parseEnvelope(value, Networks.TESTNET)).toEqual({ ok: false, problem: 'malformed' });
  });

  it('tells a fee bump apart', () => {
    const inner = draft();
    inner.sign(wallet);
    const bump = TransactionBuilder.buildFeeBumpTransaction(Keypair.random(), '200', inner, Networks.TESTNET);
    expect(parseEnvelope(bump.toXDR(), Networks.TESTNET)).toEqual({ ok: false, problem: 'fee-bump' });
  });
});

describe('checkSignature', () => {
  it('is valid when the wallet signed for this network', () => {
    const tx = draft();
    tx.sign(wallet);
    expect(checkSignature(tx, wallet.publicKey())).toBe('valid');
  });

  it('says none for an unsigned envelope', () => {
    expect(checkSignature(draft(), wallet.publicKey())).toBe('none');
  });

  it('recognises the wallet signing the same transaction for another network', () => {
    const forPubnet = draft(Networks.PUBLIC);
    forPubnet.sign(wallet);
    // The same envelope read on testnet: same body, a signature over pubnet's hash.
    const onTestnet = TransactionBuilder.fromXDR(forPubnet.toXDR(), Networks.TESTNET) as Transaction;
    expect(checkSignature(onTestnet, wallet.publicKey())).toBe('other-network');
  });

  it('leaves other signers (multisig, forgeries) to the network', () => {
    const tx = draft();
    tx.sign(Keypair.random());
    expect(checkSignature(tx, wallet.publicKey())).toBe('unknown');
  });
});
