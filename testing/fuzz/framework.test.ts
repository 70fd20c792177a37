// Rejections made before any handler runs (by Node's HTTP parser, Fastify's
// router and body reader, and the upload parser) still answer with the one
// error body, on every route: over-long path parameters, malformed
// percent-encoding, an over-large request head, and over-large bodies (413).
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { RawClient, WRITE_METHODS, answerProblem, describeExchange, healthy, pathParams, startRecordedService, type RawRequest } from './harness.ts'

const { service, routes } = await startRecordedService()
const client = new RawClient(service.baseUrl, { authorization: `Bearer ${service.tokens.admin}`, 'shortcut-token': service.tokens.v3 })
afterAll(async () => {
  await client.close()
  await service.close()
})

/** The route's path with every parameter valid-looking except the one given. */
function pathWith(url: string, bad: string, which: number): string {
  let i = 0
  return url.replace(/:[A-Za-z_]+/g, (p) => {
    const mine = i++ === which
    if (mine) return bad
    return p === ':workspace' ? service.workspace : '1'
  })
}

/** Sends each request and fails, listing the first few, if any answer breaks the rules or has another status. */
async function sweep(requests: RawRequest[], expectStatus?: (status: number) => boolean): Promise<void> {
  const failures: string[] = []
  for (const req of requests) {
    const answer = await client.send(req)
    const problem = answerProblem(answer) ?? (expectStatus && !expectStatus(answer.status) ? `answered ${answer.status}` : undefined)
    if (problem) failures.push(`${problem}: ${describeExchange(req, answer).slice(0, 300)}`)
  }
  if (failures.length > 0) {
    const more = failures.length > 4 ? `\n...and ${failures.length - 4} more of ${requests.length} requests` : ''
    expect.fail(`${failures.length} answers broke the rules:\n${failures.slice(0, 4).join('\n')}${more}`)
  }
}

const withParams = () => routes.filter((r) => pathParams(r.url).length > 0)

describe('rejections before the handlers', () => {
  it('answers a path parameter longer than the router takes with a 4xx and the error body, on every route', async () => {
    const requests = withParams().flatMap((r) => pathParams(r.url).map((_, i) => ({ method: r.method, path: pathWith(r.url, '1'.repeat(101), i) })))
    expect(requests.length).toBeGreaterThan(100)
    await sweep(requests, (s) => s >= 400 && s < 500)
  })

  it('answers malformed percent-encoding in a path with 400 and the error body, on every route', async () => {
    const requests = withParams().flatMap((r) =>
      pathParams(r.url).flatMap((_, i) => ['%zz', '%C0%AE', '%E0%A4%A'].map((bad) => ({ method: r.method, path: pathWith(r.url, bad, i) }))),
    )
    await sweep(requests, (s) => s === 400)
  })

  it('answers a request head over the size Node accepts with a 4xx and the error body, and keeps serving', async () => {
    const requests = [
      { method: 'GET', path: `/api/v4/${service.workspace}/epics?fields=${'a'.repeat(20_000)}` },
      { method: 'GET', path: `/api/v3/${'a'.repeat(20_000)}` },
    ]
    const answers = await Promise.all(requests.map((r) => client.send(r)))
    expect(await healthy(service)).toBe(true)
    await sweep(requests, (s) => s === 431 || s === 414)
    expect(answers.map((a) => a.status)).toEqual([431, 431])
  })

  it('answers 413 with the error body to a JSON body over the limit (8 MiB), on every write route', async () => {
    const body = `{"name":"${'x'.repeat(8 * 1024 * 1024)}"}`
    const requests = routes
      .filter((r) => WRITE_METHODS.has(r.method))
      .map((r) => ({ method: r.method, path: pathWith(r.url, '1', -1), body, contentType: 'application/json' }))
    expect(requests.length).toBeGreaterThan(40)
    await sweep(requests, (s) => s === 413)
  })

  it('answers 413 to an over-large body sent without a length (chunked)', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    const body = Readable.from(
      (function* () {
        yield Buffer.from('{"name":"')
        for (let i = 0; i < 9; i++) yield chunk
        yield Buffer.from('"}')
      })(),
    )
    const res = await (
      await import('undici')
    ).request(`${service.baseUrl}/api/v3/categories`, {
      method: 'POST',
      headers: { 'shortcut-token': service.tokens.v3, 'content-type': 'application/json' },
      body,
    })
    const text = await res.body.text()
    expect(res.statusCode).toBe(413)
    expect(JSON.parse(text)).toEqual({ message: expect.any(String), tag: 'payload_too_large' })
  })

  it('answers 413 with the error body, naming the part, to an uploaded file over the limit', async () => {
    // A small per-file limit keeps the test fast; the mechanism is the one of the 50 MiB default.
    const { service: small } = await startRecordedService({ maxFileBytes: 256 * 1024 })
    const smallClient = new RawClient(small.baseUrl, { 'shortcut-token': small.tokens.v3 })
    try {
      const boundary = 'b0undary'
      const part = (name: string, size: number) =>
        Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
          Buffer.alloc(size, 7),
          Buffer.from('\r\n'),
        ])
      const upload = (parts: Buffer[]) =>
        smallClient.send({
          method: 'POST',
          path: '/api/v3/files',
          body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
          contentType: `multipart/form-data; boundary=${boundary}`,
        })
      const atLimit = await upload([part('file0', 256 * 1024)])
      expect(atLimit.status).toBe(201)
      const over = await upload([part('file0', 10), part('file1', 256 * 1024 + 1)])
      expect(over.status).toBe(413)
      expect(answerProblem(over)).toBeUndefined()
      expect(Object.keys((over.json as { errors: object }).errors)).toEqual(['file1'])
      // Nothing of the refused request was stored.
      const files = await smallClient.send({ method: 'GET', path: '/api/v3/files' })
      expect((files.json as unknown[]).length).toBe(small.ctx.col('file').count())
      expect(
        small.ctx
          .col('file')
          .all()
          .filter((f) => (f as unknown as { name: string }).name === 'file0.bin'),
      ).toHaveLength(1)
    } finally {
      await smallClient.close()
      await small.close()
    }
  })

  it('answers an unknown operation (path or method) with 404 and the error body', async () => {
    const paths = [
      '/api/v3/nope',
      `/api/v4/${service.workspace}/nope/1`,
      '/api/v4/nope',
      '/media/nope',
      '/api/v3/epics/1/nope',
      '/nope',
      '/api/v3/../../etc/passwd',
    ]
    const methods = ['GET', 'POST', 'OPTIONS', 'PROPFIND', 'PATCH']
    await sweep(
      paths.flatMap((path) => methods.map((method) => ({ method, path }))),
      (s) => s === 404,
    )
  })

  it('answers a truncated or malformed upload with a 4xx and the error body', async () => {
    const boundary = 'b0undary'
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file0"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`
    const bodies: [string, string][] = [
      [`${head}hello`, `multipart/form-data; boundary=${boundary}`],
      [`${head}hello\r\n--${boundary}`, `multipart/form-data; boundary=${boundary}`],
      ['garbage', `multipart/form-data; boundary=${boundary}`],
      [`${head}hello\r\n--${boundary}--\r\n`, 'multipart/form-data'],
      [`--${boundary}\r\nContent-Disposition: form-data; name="file0"; filename="a.txt"\r\n`, `multipart/form-data; boundary=${boundary}`],
    ]
    await sweep(
      bodies.map(([body, contentType]) => ({ method: 'POST', path: '/api/v3/files', body, contentType })),
      (s) => s >= 400 && s < 500,
    )
  })
})
