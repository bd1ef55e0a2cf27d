import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';

const ROOT = join(__dirname, '..', '..');

type Schema = Record<string, unknown>;

/** Whether a property schema says it may be null, in any of OAS 3.0's spellings. */
function saysNullable(schema: Schema): boolean {
  if (schema.nullable === true) return true;
  return [schema.anyOf, schema.oneOf]
    .flat()
    .some((s) => typeof s === 'object' && s !== null && (s as Schema).nullable === true);
}

/**
 * The document Swagger UI and SDK generators read (`/api/docs-json`, OAS 3.0): a property it says is
 * nullable must accept null under a validator. `{allOf: [$ref], nullable: true}` does not (the
 * referenced object schema applies to null too), and strict validators refused every webhook without
 * a delivery yet (`lastDelivery: null`).
 */
describe('the generated OpenAPI document (OAS 3.0)', () => {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi', 'generated.json'), 'utf8')) as {
    components: { schemas: Record<string, Schema & { properties?: Record<string, Schema> }> };
  };
  const ajv = new Ajv({ strict: false, validateFormats: false });
  for (const [name, schema] of Object.entries(doc.components.schemas))
    ajv.addSchema(schema, `#/components/schemas/${name}`);
  const nullable = Object.entries(doc.components.schemas).flatMap(([name, schema]) =>
    Object.entries(schema.properties ?? {})
      .filter(([, property]) => saysNullable(property))
      .map(([property, propertySchema]) => ({ at: `${name}.${property}`, propertySchema })),
  );

  it('has nullable properties, among them the webhook list item lastDelivery', () => {
    expect(nullable.map((n) => n.at)).toContain('WebhookListItemDto.lastDelivery');
  });

  it('accepts null for every property it says is nullable', () => {
    const refused = nullable
      .filter(({ propertySchema }) => !ajv.validate(propertySchema, null))
      .map((n) => n.at);
    expect(refused).toEqual([]);
  });
});
