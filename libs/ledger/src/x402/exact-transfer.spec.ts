import { Address, Keypair, authorizeEntry, hash, xdr } from '@stellar/stellar-sdk';
import { networkPassphrase } from '../network/ledger-network';
import { USDC_CONTRACT } from '../network/usdc';
import { buildInvocation } from '../transactions/build-invocation';
import { attachAssistedSignatures, authorizationPreimages, AssistedSignatureError } from './assisted-signing';
import { exactTransferOperation } from './exact-payment';
import { type ExactExpectation, brokenExactRule, paymentNonce, readExactTransfer } from './exact-transfer';
import type { ExactRequirements } from './x402-messages';

const TESTNET = networkPassphrase('ledger:testnet');
const PUBNET = networkPassphrase('ledger:pubnet');
const payer = Keypair.fromRawEd25519Seed(hash(Buffer.from('payer')));
const stranger = Keypair.fromRawEd25519Seed(hash(Buffer.from('stranger')));
const sponsor = Keypair.fromRawEd25519Seed(hash(Buffer.from('sponsor')));
const receiver = Keypair.fromRawEd25519Seed(hash(Buffer.from('receiver'))).publicKey();
const USDC = USDC_CONTRACT['ledger:testnet'];
const OTHER_TOKEN = USDC_CONTRACT['ledger:pubnet'];

const requirements = (overrides: Partial<ExactRequirements> = {}): ExactRequirements => ({
  scheme: 'exact',
  network: 'stellar:testnet',
  amount: '2026000',
  asset: USDC,
  payTo: receiver,
  maxTimeoutSeconds: 600,
  extra: { areFeesSponsored: true },
  ...overrides,
});

const expected: ExactExpectation = {
  asset: USDC,
  payTo: receiver,
  amount: 2_026_000n,
  sponsors: new Set([sponsor.publicKey()]),
  passphrase: TESTNET,
};

interface TransferOptions {
  from?: Keypair;
  source?: string;
  signer?: Keypair | null;
  passphrase?: string;
  expiration?: number;
  subInvocation?: boolean;
  req?: Partial<ExactRequirements>;
}

/** An envelope as a client would send it, built and signed locally (no ledger involved). */
async function envelope(options: TransferOptions = {}): Promise<string> {
  const from = options.from ?? payer;
  const op = exactTransferOperation(from.publicKey(), requirements(options.req));
  const call = op.body().invokeHostFunctionOp().hostFunction().invokeContract();
  const invocation = new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(call),
    subInvocations: options.subInvocation
      ? [
          new xdr.SorobanAuthorizedInvocation({
            function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(call),
            subInvocations: [],
          }),
        ]
      : [],
  });
  let entry = new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
      new xdr.SorobanAddressCredentials({
        address: Address.fromString(from.publicKey()).toScAddress(),
        nonce: xdr.Int64.fromString('4242'),
        signatureExpirationLedger: 0,
        signature: xdr.ScVal.scvVoid(),
      }),
    ),
    rootInvocation: invocation,
  });
  const signer = options.signer === undefined ? from : options.signer;
  if (signer) {
    entry = await authorizeEntry(
      entry,
      async (preimage) => ({ signature: signer.sign(hash(preimage.toXDR())), publicKey: signer.publicKey() }),
      options.expiration ?? 1100,
      options.passphrase ?? TESTNET,
    );
  }
  op.body().invokeHostFunctionOp().auth([entry]);
  const tx = buildInvocation({
    source: options.source ?? from.publicKey(),
    sequence: '100',
    op,
    validUntil: 2_000_000_000,
    network: 'ledger:testnet',
  });
  return tx.toEnvelope().toXDR('base64');
}

const rule = async (options: TransferOptions = {}, window = { currentLedger: 1000, maxLedger: 1120 }) =>
  brokenExactRule(readExactTransfer(await envelope(options), TESTNET), expected, window);

describe('exact-scheme rules, checked locally', () => {
  it('accepts a transfer of exactly the amount to the receiver, signed by the payer', async () => {
    const transfer = readExactTransfer(await envelope(), TESTNET);
    expect(transfer).toMatchObject({ from: payer.publicKey(), to: receiver, amount: 2_026_000n, contract: USDC });
    expect(brokenExactRule(transfer, expected, { currentLedger: 1000, maxLedger: 1120 })).toBeUndefined();
    expect(paymentNonce(transfer)).toBe('4242');
  });

  it.each<[string, TransferOptions, string]>([
    ['another amount', { req: { amount: '2025999' } }, 'wrong_amount'],
    ['another recipient', { req: { payTo: stranger.publicKey() } }, 'wrong_recipient'],
    ['another token', { req: { asset: OTHER_TOKEN } }, 'wrong_asset'],
    ['no signature', { signer: null }, 'unsigned'],
    ['a stranger signing for the payer', { signer: stranger }, 'bad_signature'],
    ['a signature made for pubnet', { passphrase: PUBNET }, 'bad_signature'],
    ['the sponsor paying', { from: sponsor }, 'sponsor_as_payer'],
    ['the sponsor as transaction source', { source: sponsor.publicKey() }, 'sponsor_as_payer'],
    ['an authorization with sub-invocations', { subInvocation: true }, 'unsafe_authorization'],
    ['an authorization already expired', { expiration: 999 }, 'expired'],
    ['an authorization living too long', { expiration: 1121 }, 'expires_too_late'],
  ])('refuses %s', async (_name, options, broken) => {
    expect(await rule(options)).toBe(broken);
  });

  it('refuses an envelope that is not a transaction', () => {
    expect(() => readExactTransfer('AAAA', TESTNET)).toThrow(
      'payload.transaction is not a base64 transaction envelope',
    );
  });
});

describe('server-assisted signing', () => {
  async function prepared() {
    const unsigned = await envelope({ signer: null });
    return authorizationPreimages(unsigned, TESTNET, 1050);
  }
  const sign = (preimage: string, key: Keypair = payer) =>
    key.sign(hash(Buffer.from(preimage, 'base64'))).toString('base64');

  it('attaches the payer signatures so the transfer passes every rule', async () => {
    const { envelope: unsigned, preimageXdrs } = await prepared();
    const signed = attachAssistedSignatures({
      envelope: unsigned,
      passphrase: TESTNET,
      payer: payer.publicKey(),
      preimageXdrs,
      signatures: preimageXdrs.map((p) => sign(p)),
      maxLedger: 1050,
    });
    const transfer = readExactTransfer(signed, TESTNET);
    expect(brokenExactRule(transfer, expected, { currentLedger: 1000, maxLedger: 1120 })).toBeUndefined();
    expect(transfer.authorizations[0].expirationLedger).toBe(1050);
  });

  it.each([
    ['a stranger signature', { key: stranger }, 'signedAuthEntries[0]'],
    ['another maxLedger than prepared', { maxLedger: 1051 }, 'preimageXdrs[0]'],
    ['a missing signature', { count: 0 }, 'signedAuthEntries'],
  ])('refuses %s, naming the field', async (_name, variant, field) => {
    const { envelope: unsigned, preimageXdrs } = await prepared();
    const signatures = preimageXdrs.map((p) => sign(p, 'key' in variant ? variant.key : payer));
    const attempt = () =>
      attachAssistedSignatures({
        envelope: unsigned,
        passphrase: TESTNET,
        payer: payer.publicKey(),
        preimageXdrs,
        signatures: 'count' in variant ? signatures.slice(0, variant.count) : signatures,
        maxLedger: 'maxLedger' in variant ? variant.maxLedger : 1050,
      });
    expect(attempt).toThrow(AssistedSignatureError);
    try {
      attempt();
    } catch (error) {
      expect((error as AssistedSignatureError).field).toBe(field);
    }
  });
});
