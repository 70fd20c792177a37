// The real service's published API description, rebuilt from the official
// client package `@shortcut/client` (generated from that description: v3 from
// its Swagger document, v4 from its OpenAPI document). Every operation with its
// method, path, path parameters, query parameters, body and answer, and JSON
// Schemas for them, so a test can hold a request or an answer against what the
// real service accepts and sends.
//
// Operations come from `lib/*/generated/Api.d.cts`: each method's `@request
// METHOD:/path` tag and its parameters (path parameters, `query`, the body).
// Named types (bodies, answers) become JSON Schema through ts-json-schema-generator
// over `data-contracts.d.cts`, with the JSDoc limits (`@maxLength`, `@pattern`,
// `@format`) kept; objects are closed (additionalProperties: false), as every
// published request body is.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createGenerator } from 'ts-json-schema-generator'
import ts from 'typescript'

export type Generation = 'v3' | 'v4'
export type JsonSchema = Record<string, unknown>

export interface PublishedOperation {
  api: Generation
  operationId: string
  method: string
  /** As published: `/api/v3/epics/{epic-public-id}`. */
  path: string
  pathParams: { name: string; type: 'number' | 'string' }[]
  /** An object schema of the query parameters (closed), or null when it takes none. */
  query: JsonSchema | null
  /** The JSON body's schema, `multipart` for a form, null when it takes no body. */
  body: JsonSchema | 'multipart' | null
  /** The 2xx answer's schema; null for no content. */
  response: JsonSchema | null
}

export interface Published {
  operations: PublishedOperation[]
  /** Named schemas of each generation, for `$ref: '<api>#/definitions/<name>'`. */
  definitions: Record<Generation, Record<string, JsonSchema>>
  /** The operation a concrete request path is, literal segments winning over parameters. */
  find(method: string, pathname: string): PublishedOperation | undefined
}

const require = createRequire(import.meta.url)
// The package's main entry is lib/index.cjs; its generated sources sit beside it.
const clientRoot = dirname(dirname(require.resolve('@shortcut/client')))
const SOURCES: Record<Generation, string> = {
  v3: join(clientRoot, 'lib/generated'),
  v4: join(clientRoot, 'lib/v4/generated'),
}

let cached: Published | undefined

/**
 * The published description: built once (about 10 s) and kept in node_modules/.cache, keyed by the client
 * package's version and this file's text, so the next process (the contract check after the suites) reads it.
 */
export function published(): Published {
  cached ??= withFind(readKept() ?? keep(build()))
  return cached
}

type Built = Pick<Published, 'operations' | 'definitions'>

const KEPT = (() => {
  const version = (JSON.parse(readFileSync(join(clientRoot, 'package.json'), 'utf8')) as { version: string }).version
  const self = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest('hex')
    .slice(0, 16)
  return join(clientRoot, '..', '..', '.cache', 'outpost-contract', `published-${version}-${self}.json`)
})()

function readKept(): Built | undefined {
  try {
    return JSON.parse(readFileSync(KEPT, 'utf8')) as Built
  } catch {
    return undefined
  }
}

function keep(built: Built): Built {
  try {
    mkdirSync(dirname(KEPT), { recursive: true })
    writeFileSync(KEPT, JSON.stringify(built))
  } catch {
    // Not kept (a read-only folder): built again next time.
  }
  return built
}

function build(): Built {
  const operations: PublishedOperation[] = []
  const definitions = { v3: {}, v4: {} } as Published['definitions']
  for (const api of ['v3', 'v4'] as const) {
    const names = new Set<string>()
    operations.push(...readOperations(api, names).map(withIntegers))
    definitions[api] = namedSchemas(join(SOURCES[api], 'data-contracts.d.cts'), names)
  }
  return { operations, definitions }
}

function withFind({ operations, definitions }: Built): Published {
  // Literal segments before parameters: `/epics/bulk` is not `/epics/{epic-public-id}`.
  const matchers = operations.map((op) => ({ op, re: pathPattern(op), params: op.pathParams.length })).sort((a, b) => a.params - b.params)
  return {
    operations,
    definitions,
    find: (method, pathname) => matchers.find((m) => m.op.method === method && m.re.test(pathname))?.op,
  }
}

/** A path template as a pattern: an integer parameter matches digits only. */
function pathPattern(op: PublishedOperation): RegExp {
  const parts = op.path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  const values = op.pathParams.map((p) => (p.type === 'number' ? '\\d+' : '[^/]+'))
  return new RegExp(`^${parts.map((part, i) => part + (values[i] ?? '')).join('')}$`)
}

// ---- operations, from Api.d.cts ----

function readOperations(api: Generation, names: Set<string>): PublishedOperation[] {
  const file = join(SOURCES[api], 'Api.d.cts')
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const runtime = readFileSync(join(SOURCES[api], 'Api.cjs'), 'utf8')
  const ops: PublishedOperation[] = []
  const visit = (node: ts.Node) => {
    if (ts.isPropertyDeclaration(node) && node.type && ts.isFunctionTypeNode(node.type)) {
      const request = ts.getJSDocTags(node).find((t) => t.tagName.text === 'request')
      const text = typeof request?.comment === 'string' ? request.comment : undefined
      const match = text?.match(/^([A-Z]+):(\S+)/)
      if (match) ops.push(operation(api, node.name.getText(), match[1], match[2], node.type, runtime, names))
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return ops
}

function operation(
  api: Generation,
  operationId: string,
  method: string,
  path: string,
  fn: ts.FunctionTypeNode,
  runtime: string,
  names: Set<string>,
): PublishedOperation {
  const pathParams: PublishedOperation['pathParams'] = []
  let query: JsonSchema | null = null
  let body: PublishedOperation['body'] = null
  for (const p of fn.parameters) {
    const name = p.name.getText()
    const type = p.type!
    if (name === 'params') continue
    if (name === 'query') query = schemaOf(type, names)
    else if (type.kind === ts.SyntaxKind.NumberKeyword || type.kind === ts.SyntaxKind.StringKeyword) {
      pathParams.push({ name, type: type.kind === ts.SyntaxKind.NumberKeyword ? 'number' : 'string' })
    } else body = isMultipart(runtime, operationId) ? 'multipart' : schemaOf(type, names)
  }
  // v4: Promise<T>; v3: Promise<AxiosResponse<T, ...>>.
  let answer = (fn.type as ts.TypeReferenceNode).typeArguments![0]
  if (ts.isTypeReferenceNode(answer) && answer.typeName.getText().endsWith('AxiosResponse')) answer = answer.typeArguments![0]
  const response = answer.kind === ts.SyntaxKind.VoidKeyword ? null : schemaOf(answer, names)
  return { api, operationId, method, path, pathParams, query, body, response }
}

function isMultipart(runtime: string, operationId: string): boolean {
  const start = runtime.indexOf(`\t${operationId} = `)
  const block = runtime.slice(start, runtime.indexOf('});', start))
  return /type: "multipart\/form-data"|ContentType\.FormData/.test(block)
}

/** A type as written in Api.d.cts: inline literals, unions, arrays, and named types by reference. */
function schemaOf(node: ts.TypeNode, names: Set<string>): JsonSchema {
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword:
      return { type: 'string' }
    case ts.SyntaxKind.NumberKeyword:
      return { type: 'number' }
    case ts.SyntaxKind.BooleanKeyword:
      return { type: 'boolean' }
    case ts.SyntaxKind.AnyKeyword:
    case ts.SyntaxKind.UnknownKeyword:
      return {}
    case ts.SyntaxKind.NullKeyword:
      return { type: 'null' }
  }
  if (ts.isLiteralTypeNode(node)) {
    if (node.literal.kind === ts.SyntaxKind.NullKeyword) return { type: 'null' }
    if (ts.isStringLiteral(node.literal)) return { const: node.literal.text }
    if (ts.isNumericLiteral(node.literal)) return { const: Number(node.literal.text) }
    return { const: node.literal.kind === ts.SyntaxKind.TrueKeyword }
  }
  if (ts.isParenthesizedTypeNode(node)) return schemaOf(node.type, names)
  if (ts.isArrayTypeNode(node)) return { type: 'array', items: schemaOf(node.elementType, names) }
  if (ts.isUnionTypeNode(node)) {
    const parts = node.types.map((t) => schemaOf(t, names))
    if (parts.every((p) => 'const' in p)) return { enum: parts.map((p) => p.const) }
    return { anyOf: parts }
  }
  if (ts.isTypeLiteralNode(node)) {
    const properties: Record<string, JsonSchema> = {}
    const required: string[] = []
    for (const member of node.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue
      const key = ts.isStringLiteral(member.name) ? member.name.text : member.name.getText()
      properties[key] = { ...schemaOf(member.type, names), ...docLimits(member) }
      if (!member.questionToken) required.push(key)
    }
    return { type: 'object', properties, ...(required.length > 0 && { required }), additionalProperties: false }
  }
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText()
    if (name === 'Record') return { type: 'object' }
    if (name === 'File') return {}
    names.add(name)
    return { $ref: `#/definitions/${name}` }
  }
  throw new Error(`published.ts: a type it cannot read: ${node.getText()}`)
}

/** The JSDoc limits of a query parameter (`@min`/`@max` as the generator writes them). */
function docLimits(member: ts.Node): JsonSchema {
  const limits: JsonSchema = {}
  for (const tag of ts.getJSDocTags(member)) {
    const value = typeof tag.comment === 'string' ? tag.comment.trim() : ''
    switch (tag.tagName.text) {
      case 'min':
      case 'minimum':
        limits.minimum = Number(value)
        break
      case 'max':
      case 'maximum':
        limits.maximum = Number(value)
        break
      case 'minLength':
        limits.minLength = Number(value)
        break
      case 'maxLength':
        limits.maxLength = Number(value)
        break
      case 'pattern':
        limits.pattern = value
        break
      case 'format':
        limits.format = value
        break
    }
  }
  return limits
}

// ---- named types, from data-contracts.d.cts ----

function namedSchemas(path: string, names: Set<string>): Record<string, JsonSchema> {
  const generator = createGenerator({ path, skipTypeCheck: true, expose: 'all', jsDoc: 'extended', topRef: false, additionalProperties: false })
  const definitions: Record<string, JsonSchema> = {}
  for (const name of names) {
    if (definitions[name]) continue
    const { definitions: nested = {}, $schema: _, ...top } = generator.createSchema(name) as JsonSchema & { definitions?: Record<string, JsonSchema> }
    definitions[name] = top
    Object.assign(definitions, nested)
  }
  return withIntegers(definitions)
}

/** `@format int64` marks an integer: the generator keeps it as a format; JSON Schema says it with multipleOf. */
function withIntegers<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withIntegers) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = withIntegers(v)
    if (out.format === 'int64' || out.format === 'int32') {
      delete out.format
      out.multipleOf = 1
    } else if (out.format === 'float' || out.format === 'double') delete out.format
    return out as T
  }
  return value
}
