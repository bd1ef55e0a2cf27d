import type { Type } from '@nestjs/common';
import {
  fromJsonSchema,
  type JsonSchemaType,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { generateSchema } from '@nestjs/swagger';

/**
 * The MCP tools' JSON Schemas, derived from the same DTO decorators that produce the OpenAPI document
 * (docs/decisions/0036): `@nestjs/swagger` explores a DTO class into OAS 3.0 schemas, and
 * {@link toJsonSchema} rewrites the few OAS 3.0 spellings into JSON Schema 2020-12, which MCP uses.
 */

/** Tool arguments as a plain object; the values are validated by the same DTO classes as REST. */
export type ToolArgs = Record<string, unknown>;
export type JsonSchema = Record<string, unknown>;

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `nullable: true` (OAS 3.0) as JSON Schema: `null` joins the type (or enum), else an `anyOf`. */
function withNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...schema.enum, null] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * OAS 3.0 (as @nestjs/swagger writes it) to JSON Schema 2020-12: `$ref`s to the explored components
 * are inlined, a one-member `allOf` (how Nest references a named enum) is merged with its siblings,
 * `nullable` becomes a `null` type and `example` becomes `examples`.
 */
function toJsonSchema(node: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item, components));
  if (!isObject(node)) return node;
  const { $ref, allOf, nullable, example, ...rest } = node;
  if (typeof $ref === 'string') return toJsonSchema(components[$ref.split('/').pop() ?? ''], components);
  const merged = Array.isArray(allOf) && allOf.length === 1 ? toJsonSchema(allOf[0], components) : {};
  const out: JsonSchema = { ...(isObject(merged) ? merged : {}) };
  if (Array.isArray(allOf) && allOf.length > 1) out.allOf = toJsonSchema(allOf, components);
  for (const [key, value] of Object.entries(rest)) out[key] = toJsonSchema(value, components);
  if (example !== undefined) out.examples = [example];
  return nullable === true ? withNull(out) : out;
}

/** The JSON Schema of a DTO class, from its `@ApiProperty` metadata. */
export function dtoSchema(dto: Type<unknown>): JsonSchema {
  const { schema, schemas } = generateSchema(dto);
  return toJsonSchema(schema, schemas) as JsonSchema;
}

/** The JSON Schema of one property of a DTO class, with its description replaced when one is given. */
export function dtoProperty(dto: Type<unknown>, name: string, description?: string): JsonSchema {
  const property = (dtoSchema(dto).properties as Record<string, JsonSchema>)[name];
  return description === undefined ? property : { ...property, description };
}

/** An object schema with some properties removed and others added (`required` lists added ones). */
export function reshape(
  schema: JsonSchema,
  change: { omit?: string[]; add?: Record<string, JsonSchema>; required?: string[] },
): JsonSchema {
  const omit = new Set(change.omit ?? []);
  const keep = (name: string): boolean => !omit.has(name);
  const properties = Object.entries(schema.properties as Record<string, JsonSchema>).filter(([n]) => keep(n));
  const required = [...((schema.required as string[] | undefined) ?? []), ...(change.required ?? [])];
  return {
    ...schema,
    properties: { ...Object.fromEntries(properties), ...change.add },
    required: required.filter(keep),
  };
}

/**
 * Advertises `schema` as the tool's input schema but lets every object through to the handler,
 * which validates it with class-validator (`validateDto`) so an agent gets exactly the messages
 * the REST API gives (not the SDK's own wording).
 */
export function advertisedOnly(schema: JsonSchema): StandardSchemaWithJSON<ToolArgs> {
  // The handler refuses any other property (`validateDto`, as REST does): the schema says so, so an
  // agent's client can check its arguments before the call.
  const input = { ...schema, additionalProperties: false };
  return {
    '~standard': {
      version: 1,
      vendor: 'taste-profile',
      validate: (value: unknown) =>
        value === undefined
          ? { value: {} }
          : isObject(value)
            ? { value }
            : { issues: [{ message: 'Tool arguments must be a JSON object.' }] },
      jsonSchema: { input: () => input, output: () => input },
    },
  };
}

/** An output schema: advertised, and the SDK validates each tool's structured result against it. */
export function checkedOutput(schema: JsonSchema): StandardSchemaWithJSON<unknown> {
  return fromJsonSchema(schema as JsonSchemaType);
}
