/**
 * The part of OpenAPI 3.1 (https://spec.openapis.org/oas/v3.1.0) that vts's own document uses, as
 * TypeScript types: the document is typed data (src/http/openapi/document.ts), so a misspelt key is
 * a compile error rather than a silently ignored field. Schemas are JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1.
 */

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export type SchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

/** A JSON Schema (2020-12) as used here. */
export interface Schema {
  $ref?: string;
  title?: string;
  description?: string;
  type?: SchemaType | SchemaType[];
  const?: Json;
  enum?: Json[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  /** A string body that is not JSON although its content type says so (see DELETE /api/vehicle). */
  contentMediaType?: string;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  /** When the key is present, these keys are too. */
  dependentRequired?: Record<string, string[]>;
  minProperties?: number;
  maxProperties?: number;
  items?: Schema;
  prefixItems?: Schema[];
  minItems?: number;
  maxItems?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  examples?: Json[];
}

export interface Reference {
  $ref: string;
}

export interface MediaType {
  schema: Schema;
  examples?: Record<string, { summary?: string; value: Json }>;
}

export interface Header {
  description: string;
  required?: boolean;
  schema: Schema;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  description: string;
  required?: boolean;
  deprecated?: boolean;
  schema: Schema;
  examples?: Record<string, { summary?: string; value: Json }>;
}

export interface RequestBody {
  description: string;
  required?: boolean;
  content: Record<string, MediaType>;
}

/** A security requirement: scheme name → roles (always empty here: rights are `x-vts-rights`). */
export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody;
  responses: Record<string, Response | Reference>;
  /** Absent: the document's default (a user login); `[]`: no authentication. */
  security?: SecurityRequirement[];
  deprecated?: boolean;
  /** Any one of these rights is needed (docs/protocol/http-api-v2.md §3.3); absent: any authenticated caller. */
  'x-vts-rights'?: string[];
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export type PathItem = {
  summary?: string;
  description?: string;
  parameters?: (Parameter | Reference)[];
} & Partial<Record<HttpMethod, Operation>>;

export type Paths = Record<string, PathItem>;

export type SecurityScheme =
  | { type: 'apiKey'; name: string; in: 'query' | 'header' | 'cookie'; description: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description: string };

export interface Tag {
  name: string;
  description: string;
}

export interface Components {
  schemas: Record<string, Schema>;
  responses: Record<string, Response>;
  parameters: Record<string, Parameter>;
  headers: Record<string, Header>;
  securitySchemes: Record<string, SecurityScheme>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect?: string;
  info: {
    title: string;
    version: string;
    summary?: string;
    description: string;
    license?: { name: string; identifier?: string; url?: string };
  };
  servers?: { url: string; description?: string }[];
  tags: Tag[];
  security: SecurityRequirement[];
  paths: Paths;
  components: Components;
}
