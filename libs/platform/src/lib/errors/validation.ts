import { ValidationPipe } from '@nestjs/common';
import { ErrorCode, ErrorDetail } from '@rp/contracts';
import type { ValidationError } from 'class-validator';
import { ApiError } from './api-error';

/**
 * Flattens class-validator's tree into `{field, message}` pairs with dotted paths (`alert.riskLevel`,
 * `channels.1`). The message drops the leading property name: the field already says it.
 */
export function validationDetails(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    const field = error.property ? (parent ? `${parent}.${error.property}` : error.property) : parent || 'body';
    for (const [rule, text] of Object.entries(error.constraints ?? {})) {
      details.push({ field, message: messageFor(rule, text, error.property) });
    }
    if (error.children?.length) details.push(...validationDetails(error.children, field === 'body' ? '' : field));
  }
  return details;
}

function messageFor(rule: string, text: string, property: string): string {
  if (rule === 'whitelistValidation') return 'is not an accepted field';
  if (rule === 'unknownValue') return 'must be a JSON object';
  return property && text.startsWith(`${property} `) ? text.slice(property.length + 1) : text;
}

export function validationError(errors: ValidationError[]): ApiError {
  const details = validationDetails(errors);
  const message = details.map((detail) => `${detail.field} ${detail.message}`).join('; ') || 'Invalid request';
  return new ApiError(400, ErrorCode.VALIDATION_FAILED, message, { details });
}

/** The pipe every app uses: unknown fields are refused, payloads become DTO instances. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: validationError,
  });
}
