import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ValidationFailedError, type FieldError } from '@app/domain';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  const result: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      const code = constraint === 'whitelistValidation' ? 'unknown_field' : constraint;
      const text = constraint === 'whitelistValidation' ? `${field} is not an accepted field` : message;
      result.push({ field, code, message: text });
    }
    if (error.children?.length) result.push(...flatten(error.children, field));
  }
  return result;
}

export const toFieldErrors = flatten;

/** Global validation: unknown fields are refused, every failing field is named in `errors`. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(flatten(errors)),
  });
}
