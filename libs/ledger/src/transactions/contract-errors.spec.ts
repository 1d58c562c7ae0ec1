import { xdr } from '@stellar/stellar-sdk';
import { decodeContractError } from './contract-errors';

const NAMES = { 1205: 'InvalidHf', 1206: 'InvalidHfSafetyCheck' };

function diagnosticEvent(topics: xdr.ScVal[], data: xdr.ScVal = xdr.ScVal.scvVoid()): xdr.DiagnosticEvent {
  return new xdr.DiagnosticEvent({
    inSuccessfulContractCall: false,
    event: new xdr.ContractEvent({
      ext: new xdr.ExtensionPoint(0),
      contractId: null,
      type: xdr.ContractEventType.diagnostic(),
      body: new xdr.ContractEventBody(0, new xdr.ContractEventV0({ topics, data })),
    }),
  });
}

const contractError = (code: number): xdr.ScVal => xdr.ScVal.scvError(xdr.ScError.sceContract(code));

// Shape of a real simulateTransaction error of a Blend pool submit that would leave the position unhealthy.
const HOST_ERROR = [
  'HostError: Error(Contract, #1205)',
  '',
  'Event log (newest first):',
  '   0: [Diagnostic Event] contract:CDVQ...:topics:[error, Error(Contract, #1205)], data:"escalating Ok(ScErrorType::Contract) frame-exit to Err"',
  '   1: [Diagnostic Event] topics:[fn_call, CDVQ..., submit], data:[GB..., GB..., GB..., [{address: CA..., amount: 100, request_type: 4}]]',
].join('\n');

describe('decodeContractError', () => {
  it('reads the code from a simulation error string, named from the names the caller passes', () => {
    expect(decodeContractError(HOST_ERROR, NAMES)).toEqual({ code: 1205, name: 'InvalidHf' });
    expect(decodeContractError('HostError: Error(Contract, #42)', NAMES)).toEqual({ code: 42, name: undefined });
  });

  it('names nothing without names: a code means something only for the contract that raised it', () => {
    expect(decodeContractError(HOST_ERROR)).toEqual({ code: 1205, name: undefined });
  });

  it('ignores host errors that are not contract errors', () => {
    expect(decodeContractError('HostError: Error(Budget, ExceededLimit)')).toBeUndefined();
    expect(decodeContractError('')).toBeUndefined();
    expect(decodeContractError(undefined)).toBeUndefined();
  });

  it('reads the code from diagnostic events, topics or data, objects or base64', () => {
    const inTopics = diagnosticEvent([xdr.ScVal.scvSymbol('error'), contractError(1206)]);
    const inData = diagnosticEvent(
      [xdr.ScVal.scvSymbol('error')],
      xdr.ScVal.scvVec([xdr.ScVal.scvU32(1), contractError(1205)]),
    );
    const unrelated = diagnosticEvent([xdr.ScVal.scvSymbol('fn_call')]);
    expect(decodeContractError([unrelated, inTopics], NAMES)).toEqual({ code: 1206, name: 'InvalidHfSafetyCheck' });
    expect(decodeContractError([inData.toXDR('base64')], NAMES)).toEqual({ code: 1205, name: 'InvalidHf' });
    expect(decodeContractError([unrelated])).toBeUndefined();
  });
});
