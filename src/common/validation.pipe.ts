import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((msg) =>
      msg.startsWith(e.property) ? `${path}${msg.slice(e.property.length)}` : `${path}: ${msg}`,
    );
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

const VALIDATOR_OPTIONS = { whitelist: true, forbidNonWhitelisted: true } as const;
const TRANSFORM_OPTIONS = { enableImplicitConversion: false } as const;

function toBadRequest(errors: ValidationError[]): BadRequestException {
  return new BadRequestException(flatten(errors).join('; ') || 'Validation failed.');
}

/** Global validation: unknown fields are refused, payloads are transformed to DTO classes. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    transformOptions: TRANSFORM_OPTIONS,
    exceptionFactory: toBadRequest,
  });
}

/**
 * Validates a plain object into `cls` exactly as the global pipe does for a request body (same
 * options, same BadRequestException message), for callers outside HTTP such as the MCP tools.
 */
export async function validateDto<T extends object>(cls: ClassConstructor<T>, plain: unknown): Promise<T> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    throw new BadRequestException('Validation failed: expected an object.');
  }
  const instance = plainToInstance(cls, plain, TRANSFORM_OPTIONS);
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw toBadRequest(errors);
  return instance;
}
