import { xdr } from '@stellar/stellar-sdk';
import { contractErrorName, decodeContractError, registerContractErrors } from './contract-errors';

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
  beforeAll(() => registerContractErrors({ 1205: 'InvalidHf', 1206: 'InvalidHfSafetyCheck' }));

  it('reads the code from a simulation error string, with its registered name', () => {
    expect(decodeContractError(HOST_ERROR)).toEqual({ code: 1205, name: 'InvalidHf' });
    expect(decodeContractError('HostError: Error(Contract, #42)')).toEqual({ code: 42, name: undefined });
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
    expect(decodeContractError([unrelated, inTopics])).toEqual({ code: 1206, name: 'InvalidHfSafetyCheck' });
    expect(decodeContractError([inData.toXDR('base64')])).toEqual({ code: 1205, name: 'InvalidHf' });
    expect(decodeContractError([unrelated])).toBeUndefined();
  });

  it('lets another module register names', () => {
    expect(contractErrorName(9999)).toBeUndefined();
    registerContractErrors({ 9999: 'Later' });
    expect(contractErrorName(9999)).toBe('Later');
  });
});
