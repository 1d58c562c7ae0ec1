import { IsBaseUnitAmount, IsLedgerAccountAddress } from '@rp/contracts';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { findDanglingRefs } from './openapi-refs';
import { validationSchemas, withValidationSchemas } from './validation-schemas';

class BridgeRecipient {
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @IsOptional()
  @IsString()
  @MaxLength(40)
  name?: string;
}

class BridgeTransfer {
  @IsLedgerAccountAddress()
  from!: string;

  @IsBaseUnitAmount()
  amount!: string;

  @IsArray()
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => BridgeRecipient)
  recipients!: BridgeRecipient[];

  @IsOptional()
  @IsInt()
  @Min(1)
  priority?: number;
}

describe('the class-validator to JSON schema bridge', () => {
  const schemas = validationSchemas();

  it('carries the constraints of each decorator', () => {
    expect(schemas['BridgeRecipient']).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', maxLength: 254 },
        name: { type: 'string', maxLength: 40 },
      },
      required: ['email'],
    });
  });

  it('leaves optional properties out of required', () => {
    expect(schemas[BridgeTransfer.name].required).toEqual(['from', 'amount', 'recipients']);
    expect(schemas[BridgeTransfer.name].properties?.['priority']).toEqual({ type: 'integer', minimum: 1 });
  });

  it('refers to the element class of a nested array', () => {
    expect(schemas[BridgeTransfer.name].properties?.['recipients']).toEqual({
      type: 'array',
      maxItems: 5,
      items: { $ref: '#/components/schemas/BridgeRecipient' },
    });
  });

  it('describes the ledger validators of contracts', () => {
    expect(schemas[BridgeTransfer.name].properties?.['from']).toMatchObject({
      type: 'string',
      pattern: '^G[A-Z2-7]{55}$',
    });
    expect(schemas[BridgeTransfer.name].properties?.['amount']).toMatchObject({
      type: 'string',
      pattern: '^(0|[1-9][0-9]{0,38})$',
    });
  });

  it('fills the components swagger named and adds the classes they refer to, so references resolve', () => {
    const components = withValidationSchemas({ BridgeTransfer: { type: 'object', properties: {} } }, schemas);
    expect(Object.keys(components).sort()).toEqual(['BridgeRecipient', 'BridgeTransfer']);
    expect(components['BridgeTransfer']).toBe(schemas[BridgeTransfer.name]);
    expect(findDanglingRefs({ components: { schemas: components } })).toEqual([]);
  });

  it('keeps a component it has no validators for as swagger wrote it', () => {
    const plain = { type: 'object', properties: { id: { type: 'string' } } };
    expect(withValidationSchemas({ PlainAnswer: plain }, schemas)).toEqual({ PlainAnswer: plain });
  });
});
