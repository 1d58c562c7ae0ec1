import { Type } from 'class-transformer';
import { IsIn, IsString, ValidateNested, validateSync } from 'class-validator';
import { validationDetails, validationError } from './validation';

class Alert {
  @IsIn(['low', 'high'])
  riskLevel!: string;
}

class Webhook {
  @IsString()
  source!: string;

  @ValidateNested()
  @Type(() => Alert)
  alert!: Alert;
}

describe('validation details', () => {
  it('gives dotted paths for nested fields and strips the property name from messages', () => {
    const webhook = Object.assign(new Webhook(), { source: 5, alert: Object.assign(new Alert(), { riskLevel: 'x' }) });
    expect(validationDetails(validateSync(webhook))).toEqual([
      { field: 'source', message: 'must be a string' },
      { field: 'alert.riskLevel', message: 'must be one of the following values: low, high' },
    ]);
  });

  it('builds a 400 VALIDATION_FAILED error whose message names every field', () => {
    const error = validationError(validateSync(Object.assign(new Webhook(), { alert: new Alert() })));
    expect(error.getStatus()).toBe(400);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe(
      'source must be a string; alert.riskLevel must be one of the following values: low, high',
    );
  });
});
