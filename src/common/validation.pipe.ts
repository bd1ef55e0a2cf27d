import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((msg) =>
      msg.startsWith(e.property) ? `${path}${msg.slice(e.property.length)}` : `${path}: ${msg}`,
    );
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

/** Global validation: unknown fields are refused, payloads are transformed to DTO classes. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => new BadRequestException(flatten(errors).join('; ') || 'Validation failed.'),
  });
}
