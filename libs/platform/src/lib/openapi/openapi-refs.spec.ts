import { collectRefs, componentOfRef, findDanglingRefs, mapRefs, resolveLocalRef } from './openapi-refs';

const document = {
  openapi: '3.0.3',
  paths: {
    '/api/v1/things': {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: { '400': { $ref: '#/components/responses/BadInput' } },
      },
    },
  },
  components: {
    schemas: {
      Thing: { type: 'object', properties: { parts: { type: 'array', items: { $ref: '#/components/schemas/Part' } } } },
      Part: { type: 'object', properties: { $ref: { type: 'string' } } },
      'a/b': { type: 'string' },
      Shape: {
        oneOf: [{ $ref: '#/components/schemas/Part' }],
        discriminator: { propertyName: 'kind', mapping: { part: '#/components/schemas/Part' } },
      },
    },
    responses: { BadInput: { description: 'bad' } },
  },
};

describe('the dangling-reference walker', () => {
  it('finds nothing when every reference resolves', () => {
    expect(findDanglingRefs(document)).toEqual([]);
  });

  it('reports each reference that points at nothing, with where it sits', () => {
    const broken = {
      ...document,
      components: { ...document.components, schemas: { ...document.components.schemas, Part: undefined } },
    };
    expect(findDanglingRefs(broken)).toEqual([
      { ref: '#/components/schemas/Part', at: 'components.schemas.Thing.properties.parts.items.$ref' },
      { ref: '#/components/schemas/Part', at: 'components.schemas.Shape.oneOf[0].$ref' },
      { ref: '#/components/schemas/Part', at: 'components.schemas.Shape.discriminator.mapping.part' },
    ]);
  });

  it('counts references to other documents and malformed pointers as dangling', () => {
    expect(findDanglingRefs({ a: { $ref: 'other.json#/components/schemas/X' }, b: { $ref: '#components' } })).toEqual([
      { ref: 'other.json#/components/schemas/X', at: 'a.$ref' },
      { ref: '#components', at: 'b.$ref' },
    ]);
  });

  it('reads escaped pointer segments and ignores a property that is merely named $ref', () => {
    expect(resolveLocalRef(document, '#/components/schemas/a~1b')).toEqual({ type: 'string' });
    expect(collectRefs(document.components.schemas.Part)).toEqual([]);
  });
});

describe('mapRefs', () => {
  it('rewrites $ref values and discriminator mappings in a copy, leaving the original alone', () => {
    const renamed = mapRefs(document.components.schemas.Shape, (ref) => ref.replace('/Part', '/txb_Part'));
    expect(renamed).toEqual({
      oneOf: [{ $ref: '#/components/schemas/txb_Part' }],
      discriminator: { propertyName: 'kind', mapping: { part: '#/components/schemas/txb_Part' } },
    });
    expect(document.components.schemas.Shape.oneOf[0].$ref).toBe('#/components/schemas/Part');
  });

  it('names the component a reference points at', () => {
    expect(componentOfRef('#/components/headers/RateLimit-Limit')).toEqual({
      kind: 'headers',
      name: 'RateLimit-Limit',
    });
    expect(componentOfRef('#/paths/x')).toBeUndefined();
  });
});
