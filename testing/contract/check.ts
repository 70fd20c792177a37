// Holds recorded traffic (the service's request journal, src-server/journal.ts)
// against the published description (published.ts):
// - a request Outpost sent (User-Agent `Outpost`) must be a published operation
//   with only the query parameters and body keys it accepts, valid values, and
//   the auth header the description documents;
// - a successful answer of the local service must validate against the
//   operation's published answer schema.
// Each finding is reduced to one line per kind of difference (operation, place,
// keyword), so a thousand epics missing one field read as one finding.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { JournalLine } from '../../src-server/journal.ts'
import { USER_AGENT } from '../../src-shared/api/operations.ts'
import { published, type Generation, type JsonSchema, type PublishedOperation } from './published.ts'

export interface Finding {
  /** `request` (what Outpost sent) or `answer` (what the local service answered). */
  side: 'request' | 'answer'
  /** `v4 listEpics`, or the method and path when no published operation matches. */
  operation: string
  /** Where in the request or answer, array indexes as `*`: `query.external_id`, `body.content_type`, `entities.*.uri`. */
  at: string
  /** What is wrong: `not accepted`, `missing`, a keyword and its detail. */
  problem: string
  /** How many recorded exchanges showed it. */
  count: number
  /** One request that showed it. */
  example: string
}

const ROOT = (api: Generation) => `https://published.invalid/${api}`

export class ContractChecker {
  // The published patterns are written for non-unicode regular expressions (`[a-z0-9\-\_\.]`).
  private readonly ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false })
  /** Query strings are text: coerced to the schema's types before checking. */
  private readonly coercing = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false, coerceTypes: 'array' })
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly findings = new Map<string, Finding>()
  /** Exchanges checked: requests of Outpost's, and answers. */
  readonly checked = { requests: 0, answers: 0, longAnswers: 0 }

  constructor() {
    const { definitions } = published()
    for (const ajv of [this.ajv, this.coercing]) {
      addFormats.default(ajv)
      // A colour as CSS writes it: the description does not say which forms; any text passes.
      ajv.addFormat('css-color', true)
      for (const api of ['v3', 'v4'] as const) ajv.addSchema({ $id: ROOT(api), definitions: definitions[api] })
    }
  }

  /** Every journal file in a folder. */
  checkFolder(dir: string): void {
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.ndjson'))
      .sort()) {
      for (const text of readFileSync(join(dir, name), 'utf8').split('\n')) if (text) this.check(JSON.parse(text) as JournalLine)
    }
  }

  check(line: JournalLine): void {
    const url = new URL(line.url, 'http://journal.invalid')
    if (!url.pathname.startsWith('/api/')) return
    const op = published().find(line.method, url.pathname)
    const name = op ? `${op.api} ${op.operationId}` : `${line.method} ${url.pathname.replace(/\/\d+(?=\/|$)/g, '/{id}')}`
    if (line.agent === USER_AGENT) {
      this.checked.requests++
      this.checkRequest(line, url, op, name)
    }
    if (op && line.status >= 200 && line.status < 300) {
      if (line.long) this.checked.longAnswers++
      if (line.answer === undefined) return
      this.checked.answers++
      if (!op.response) return this.add('answer', name, '(answer)', 'published with no content', line)
      const validate = this.validator(this.ajv, op, 'response', op.response)
      if (validate(JSON.parse(line.answer))) return
      // An answer to `fields=` carries only the fields asked for: what it leaves out is not missing.
      const asked = url.searchParams.has('fields')
      this.addErrors(
        'answer',
        name,
        '',
        (validate.errors ?? []).filter((e) => !(asked && e.keyword === 'required')),
        line,
      )
    }
  }

  private checkRequest(line: JournalLine, url: URL, op: PublishedOperation | undefined, name: string): void {
    if (!op) return this.add('request', name, '(operation)', 'not in the published description', line)
    const wanted = op.api === 'v3' ? 'shortcut-token' : 'authorization'
    if (!line.auth.includes(wanted)) this.add('request', name, '(headers)', `no ${wanted} header`, line)

    const query: Record<string, string | string[]> = {}
    for (const key of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(key)
      query[key] = values.length === 1 ? values[0] : values
    }
    if (Object.keys(query).length > 0) {
      if (!op.query) for (const key of Object.keys(query)) this.add('request', name, `query.${key}`, 'not accepted (the operation takes no query)', line)
      else {
        const validate = this.validator(this.coercing, op, 'query', op.query)
        if (!validate(query)) this.addErrors('request', name, 'query', validate.errors ?? [], line)
      }
    }

    if (line.type === 'multipart/form-data') {
      if (op.body !== 'multipart') this.add('request', name, '(body)', 'multipart where the operation takes JSON', line)
    } else if (line.body !== undefined) {
      if (op.body === null || op.body === 'multipart') this.add('request', name, '(body)', 'a JSON body the operation does not take', line)
      else {
        const validate = this.validator(this.ajv, op, 'body', op.body)
        if (!validate(line.body)) this.addErrors('request', name, 'body', validate.errors ?? [], line)
      }
    }
  }

  /** Findings, the most frequent first. */
  report(): Finding[] {
    return [...this.findings.values()].sort((a, b) => b.count - a.count || a.operation.localeCompare(b.operation))
  }

  private validator(ajv: Ajv, op: PublishedOperation, part: string, schema: JsonSchema): ValidateFunction {
    const key = `${ajv === this.ajv ? 's' : 'c'} ${op.api} ${op.operationId} ${part}`
    let validate = this.compiled.get(key)
    if (!validate) {
      // Named types live in the generation's root schema.
      const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/definitions/', `"${ROOT(op.api)}#/definitions/`)) as JsonSchema
      validate = ajv.compile(rooted)
      this.compiled.set(key, validate)
    }
    return validate
  }

  private addErrors(side: Finding['side'], operation: string, base: string, errors: ErrorObject[], line: JournalLine): void {
    // A value that matches none of a union's branches reports each branch; the union's own error says it once.
    const unions = new Set(errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath))
    for (const e of errors) {
      if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && unions.has(e.instancePath)) continue
      const path = [
        base,
        ...e.instancePath
          .split('/')
          .slice(1)
          .map((p) => (/^\d+$/.test(p) ? '*' : p)),
      ]
        .filter(Boolean)
        .join('.')
      const params = e.params as Record<string, unknown>
      if (e.keyword === 'additionalProperties') this.add(side, operation, join2(path, String(params.additionalProperty)), 'not in the published schema', line)
      else if (e.keyword === 'required') this.add(side, operation, join2(path, String(params.missingProperty)), 'missing', line)
      else this.add(side, operation, path || '(root)', `${e.keyword}: ${e.message ?? ''}`, line)
    }
  }

  private add(side: Finding['side'], operation: string, at: string, problem: string, line: JournalLine): void {
    const key = `${side}|${operation}|${at}|${problem}`
    const found = this.findings.get(key)
    if (found) found.count++
    else this.findings.set(key, { side, operation, at, problem, count: 1, example: `${line.method} ${line.url}` })
  }
}

const join2 = (a: string, b: string) => (a ? `${a}.${b}` : b)
