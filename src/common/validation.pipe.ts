import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { isUuid, typeFirstMessages } from './validation';

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = typeFirstMessages(e.constraints ?? {}).map((msg) =>
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

/**
 * The path of the first string (or object key) holding a NUL character, or null. PostgreSQL cannot
 * store NUL in text, so such input is a 400 before anything else runs. Iterative: no recursion depth.
 */
export function findNulCharacter(value: unknown, root: string): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return path;
        stack.push([child, Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`]);
      }
    }
  }
  return null;
}

/**
 * What a path parameter holding a NUL character becomes: no id and no storage key, so the route
 * answers its own 404 for it, as for any other malformed id (DECISIONS: "A malformed id is a 404").
 */
export const MALFORMED_PATH_VALUE = 'malformed';

/**
 * The global pipe: NUL characters refused in any body or query value (400), then class-validator. Every
 * path parameter is an id or an image's storage key: one holding a NUL is malformed, the route's 404;
 * a UUID is read in lower case.
 */
class ApiValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'param') {
      if (findNulCharacter(value, 'param')) value = MALFORMED_PATH_VALUE;
      // A UUID names the same id in either letter case: its canonical spelling from here on, so an
      // answer (`DELETE`'s `id`) and the audit log never echo the caller's capitals.
      else if (typeof value === 'string' && isUuid(value)) value = value.toLowerCase();
    } else if (metadata.type !== 'custom') {
      const path = findNulCharacter(
        value,
        metadata.type === 'body' ? 'body' : (metadata.data ?? metadata.type),
      );
      if (path) throw new BadRequestException(`${path} must not contain NUL characters.`);
    }
    return super.transform(value, metadata);
  }
}

/** Global validation: unknown fields are refused, payloads are transformed to DTO classes. */
export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
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
  const nul = findNulCharacter(plain, 'arguments');
  if (nul) throw new BadRequestException(`${nul} must not contain NUL characters.`);
  const instance = plainToInstance(cls, plain, TRANSFORM_OPTIONS);
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw toBadRequest(errors);
  return instance;
}
