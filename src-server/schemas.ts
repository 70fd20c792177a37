// GET /api/v4/schemas/{schema-name}: the JSON schema of a v4 route (part 2 §4.2).
// Names are derived from each route: method and path without the workspace,
// e.g. `post-epics`, `patch-epics-bulk`, `get-documents-id` (GET /api/v4/schemas lists them).
import { Type } from 'typebox'
import type { RouteOptions } from 'fastify'
import type { ApiApp } from './resource.ts'
import { ApiError } from './errors.ts'

interface RouteSchema {
  name: string
  method: string
  path: string
  params?: unknown
  querystring?: unknown
  body?: unknown
}

export function schemaName(method: string, url: string): string {
  const rest = url.replace(/^\/api\/v4\/(:workspace\/)?/, '')
  const parts = rest
    .split('/')
    .filter(Boolean)
    .map((p) => (p.startsWith(':') ? p.slice(1) : p))
  return [method.toLowerCase(), ...parts].join('-')
}

/** Collects v4 route schemas as routes are added; call before any route is registered. */
export function collectSchemas(app: ApiApp): Map<string, RouteSchema> {
  const schemas = new Map<string, RouteSchema>()
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith('/api/v4/') || route.url.startsWith('/api/v4/schemas')) return
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      if (method === 'HEAD') continue
      const name = schemaName(method, route.url)
      const s = route.schema ?? {}
      // JSON round trip: TypeBox schemas are plain JSON Schema once their symbols are dropped.
      schemas.set(
        name,
        JSON.parse(
          JSON.stringify({
            name,
            method,
            path: route.url.replace(':workspace', '{workspace-slug}'),
            params: s.params,
            querystring: s.querystring,
            body: s.body,
          }),
        ) as RouteSchema,
      )
    }
  })
  return schemas
}

export function schemaRoutes(app: ApiApp, schemas: Map<string, RouteSchema>): void {
  app.get('/api/v4/schemas', async () => ({ schemas: [...schemas.keys()].sort() }))
  app.get('/api/v4/schemas/:name', { schema: { params: Type.Object({ name: Type.String({ maxLength: 200 }) }) } }, async (req) => {
    const found = schemas.get(req.params.name)
    if (!found) throw ApiError.notFound(`No schema named "${req.params.name}". GET /api/v4/schemas lists them.`)
    return found
  })
}
