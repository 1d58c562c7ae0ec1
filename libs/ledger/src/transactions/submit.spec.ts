import { Account, Keypair, Networks, Operation, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { LedgerRpc } from '../rpc/ledger-rpc';
import { SubmissionRejectedError, SubmissionTimeoutError, submitAndWait, transactionResultCode } from './submit';

/** A result as the network encodes it, decoded again the way the SDK parses `errorResultXdr`. */
function txResult(result: xdr.TransactionResultResult): xdr.TransactionResult {
  const encoded = new xdr.TransactionResult({
    feeCharged: new xdr.Int64(100),
    result,
    ext: new xdr.TransactionResultExt(0),
  }).toXDR('base64');
  return xdr.TransactionResult.fromXDR(encoded, 'base64');
}

function feeBumpInnerFailed(inner: xdr.InnerTransactionResultResult): xdr.TransactionResultResult {
  return xdr.TransactionResultResult.txFeeBumpInnerFailed(
    new xdr.InnerTransactionResultPair({
      transactionHash: Buffer.alloc(32),
      result: new xdr.InnerTransactionResult({
        feeCharged: new xdr.Int64(100),
        result: inner,
        ext: new xdr.InnerTransactionResultExt(0),
      }),
    }),
  );
}

describe('transactionResultCode', () => {
  it.each([
    [xdr.TransactionResultResult.txBadSeq(), 'txBadSeq'],
    [xdr.TransactionResultResult.txBadAuth(), 'txBadAuth'],
    [xdr.TransactionResultResult.txInsufficientFee(), 'txInsufficientFee'],
    [xdr.TransactionResultResult.txTooLate(), 'txTooLate'],
    [xdr.TransactionResultResult.txFailed([]), 'txFailed'],
    [feeBumpInnerFailed(xdr.InnerTransactionResultResult.txBadSeq()), 'txBadSeq'],
  ])('decodes %#', (result, name) => {
    expect(transactionResultCode(txResult(result))).toBe(name);
  });

  it('says unknown when there is no result', () => {
    expect(transactionResultCode(undefined)).toBe('unknown');
  });
});

describe('submitAndWait', () => {
  const ledger = new LedgerRpc({ rpcUrl: 'http://127.0.0.1:9', network: 'ledger:testnet' });
  const keypair = Keypair.random();
  const tx = new TransactionBuilder(new Account(keypair.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.bumpSequence({ bumpTo: '5' }))
    .setTimeout(30)
    .build();
  tx.sign(keypair);
  const hash = tx.hash().toString('hex');
  const sent = (status: rpc.Api.SendTransactionStatus, errorResult?: xdr.TransactionResult) =>
    ({ status, hash, latestLedger: 1, latestLedgerCloseTime: 0, errorResult }) as rpc.Api.SendTransactionResponse;
  const found = (status: rpc.Api.GetTransactionStatus, extra: object = {}) =>
    ({ status, txHash: hash, ledger: 77, ...extra }) as unknown as rpc.Api.GetTransactionResponse;
  const { NOT_FOUND, SUCCESS, FAILED } = rpc.Api.GetTransactionStatus;

  afterEach(() => jest.restoreAllMocks());

  it('polls until SUCCESS and returns the ledger and return value', async () => {
    jest.spyOn(ledger, 'sendTransaction').mockResolvedValue(sent('PENDING'));
    const returnValue = xdr.ScVal.scvU32(5);
    const poll = jest
      .spyOn(ledger, 'getTransaction')
      .mockResolvedValueOnce(found(NOT_FOUND))
      .mockResolvedValueOnce(found(NOT_FOUND))
      .mockResolvedValueOnce(found(SUCCESS, { returnValue }));
    await expect(submitAndWait(ledger, tx, { pollIntervalMs: 1 })).resolves.toEqual({
      hash,
      status: 'SUCCESS',
      ledger: 77,
      returnValue,
    });
    expect(poll).toHaveBeenCalledTimes(3);
    expect(poll).toHaveBeenCalledWith(hash);
  });

  it('treats DUPLICATE as accepted', async () => {
    jest.spyOn(ledger, 'sendTransaction').mockResolvedValue(sent('DUPLICATE'));
    jest.spyOn(ledger, 'getTransaction').mockResolvedValue(found(SUCCESS));
    await expect(submitAndWait(ledger, tx, { pollIntervalMs: 1 })).resolves.toMatchObject({ status: 'SUCCESS' });
  });

  it('turns ERROR into SubmissionRejectedError with the result code name', async () => {
    jest
      .spyOn(ledger, 'sendTransaction')
      .mockResolvedValue(sent('ERROR', txResult(xdr.TransactionResultResult.txBadSeq())));
    const poll = jest.spyOn(ledger, 'getTransaction');
    const error = await submitAndWait(ledger, tx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmissionRejectedError);
    expect(error).toMatchObject({ resultCode: 'txBadSeq', hash });
    expect(poll).not.toHaveBeenCalled();
  });

  it('reports FAILED with its result code', async () => {
    jest.spyOn(ledger, 'sendTransaction').mockResolvedValue(sent('PENDING'));
    jest
      .spyOn(ledger, 'getTransaction')
      .mockResolvedValue(found(FAILED, { resultXdr: txResult(xdr.TransactionResultResult.txFailed([])) }));
    await expect(submitAndWait(ledger, tx, { pollIntervalMs: 1 })).resolves.toEqual({
      hash,
      status: 'FAILED',
      ledger: 77,
      resultCode: 'txFailed',
    });
  });

  it('gives up after timeoutMs with SubmissionTimeoutError', async () => {
    jest.spyOn(ledger, 'sendTransaction').mockResolvedValue(sent('PENDING'));
    jest.spyOn(ledger, 'getTransaction').mockResolvedValue(found(NOT_FOUND));
    const started = Date.now();
    await expect(submitAndWait(ledger, tx, { pollIntervalMs: 10, timeoutMs: 60 })).rejects.toBeInstanceOf(
      SubmissionTimeoutError,
    );
    // It gave up (after 60 ms of polling) instead of polling for ever; room for a busy machine.
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
