// Webhook integrations (v3 /integrations/webhook) and the delivery of every
// activity of the service to the enabled ones, as signed v1 events.
import { Type } from 'typebox'
import { Id } from '../../../src-shared/api/common.ts'
import {
  CreateWebhookIntegrationV3,
  UpdateWebhookIntegrationV3,
  WEBHOOK_SECRET_MAX,
  isWebhookUrl,
  type WebhookIntegrationV3,
} from '../../../src-shared/api/v3/webhooks.ts'
import type { ApiApp, Deps, Resource } from '../../resource.ts'
import type { Activity, ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { Deliveries } from './delivery.ts'
import { payloadOf } from './payload.ts'

export interface WebhookRecord {
  id: number
  created_at: string
  updated_at: string
  webhook_url: string
  /** Kept to sign deliveries; never rendered. */
  secret: string | null
  disabled: boolean
  creator_id: string
}

const integrations = (ctx: ServiceContext) => ctx.col<WebhookRecord>('webhook')
const IdParams = Type.Object({ id: Id })
/** Observers may not even read integrations (part 2 §5); the core enforces it. */
const config = { noObserver: true }

function checkUrl(url: string | undefined): void {
  if (url !== undefined && !isWebhookUrl(url)) {
    throw ApiError.badRequest('webhook_url must be an absolute http or https URL.', { webhook_url: 'must be an absolute http or https URL' })
  }
}

/** The update body's nullable secret carries no maxLength (see UpdateWebhookIntegrationV3): checked here. */
function checkSecret(secret: string | null | undefined): void {
  // Characters, not UTF-16 units: the same count as the schema check of create.
  if (typeof secret === 'string' && [...secret].length > WEBHOOK_SECRET_MAX) {
    const reason = `must be at most ${WEBHOOK_SECRET_MAX} characters`
    throw ApiError.unprocessable(`Too long: secret ${reason}.`, { secret: reason })
  }
}

export function createIntegration(ctx: ServiceContext, creatorId: string, input: CreateWebhookIntegrationV3): WebhookRecord {
  checkUrl(input.webhook_url)
  const now = ctx.now()
  return integrations(ctx).insert({
    id: ctx.nextId(),
    created_at: now,
    updated_at: now,
    webhook_url: input.webhook_url,
    secret: input.secret ?? null,
    disabled: false,
    creator_id: creatorId,
  })
}

export function updateIntegration(ctx: ServiceContext, id: number, patch: UpdateWebhookIntegrationV3): WebhookRecord {
  checkUrl(patch.webhook_url)
  checkSecret(patch.secret)
  const current = integrations(ctx).require(id)
  return integrations(ctx).update({ ...current, ...patch, updated_at: ctx.now() })
}

export function deleteIntegration(ctx: ServiceContext, id: number): void {
  if (!integrations(ctx).delete(id)) throw ApiError.notFound(`Webhook integration ${id} does not exist.`)
}

export const integrationV3 = (w: WebhookRecord): WebhookIntegrationV3 => ({
  entity_type: 'integration',
  webhook_url: w.webhook_url,
  disabled: w.disabled,
  type: 'generic',
  creator_id: w.creator_id,
  updated_at: w.updated_at,
  id: w.id,
  has_secret: w.secret !== null,
  created_at: w.created_at,
})

/** The origin app_url values point at: where this service listens. */
function listeningOrigin(app: ApiApp): string | undefined {
  const address = app.server.address()
  if (!address || typeof address === 'string') return undefined
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`
}

/** Feeds every activity to the enabled integrations until the service closes. */
function deliverActivity(app: ApiApp, deps: Deps): void {
  const { ctx } = deps
  let closed = false
  const deliveries = new Deliveries({
    // ServiceOptions.webhookRetry (1 s doubling, five retries, by default).
    schedule: () => deps.webhookRetry,
    target: (id) => {
      if (closed) return undefined
      const w = integrations(ctx).get(id)
      return w && !w.disabled ? { url: w.webhook_url, secret: w.secret } : undefined
    },
  })
  const onActivity = (activity: Activity) => {
    // A listener that throws would fail the request that emitted the activity.
    try {
      const targets = integrations(ctx)
        .all()
        .filter((w) => !w.disabled)
      if (targets.length === 0) return
      const body = JSON.stringify(payloadOf(ctx, activity, listeningOrigin(app)))
      for (const w of targets) deliveries.enqueue(w.id, body)
    } catch (error) {
      console.error('outpost-local: could not queue a webhook event', error)
    }
  }
  ctx.activity.on('activity', onActivity)
  app.addHook('onClose', async () => {
    closed = true
    ctx.activity.off('activity', onActivity)
    await deliveries.stop()
  })
}

export const webhooksResource: Resource = {
  v3: (app, { ctx }) => {
    app.get('/integrations/webhook', { config }, async () => integrations(ctx).all().map(integrationV3))

    app.post('/integrations/webhook', { config, schema: { body: CreateWebhookIntegrationV3 } }, async (req, reply) => {
      const created = ctx.tx(() => createIntegration(ctx, req.auth.member.id, req.body))
      return reply.code(201).send(integrationV3(created))
    })

    app.get('/integrations/webhook/:id', { config, schema: { params: IdParams } }, async (req) => integrationV3(integrations(ctx).require(req.params.id)))

    app.put('/integrations/webhook/:id', { config, schema: { params: IdParams, body: UpdateWebhookIntegrationV3 } }, async (req) =>
      integrationV3(ctx.tx(() => updateIntegration(ctx, req.params.id, req.body))),
    )

    app.delete('/integrations/webhook/:id', { config, schema: { params: IdParams } }, async (req, reply) => {
      ctx.tx(() => deleteIntegration(ctx, req.params.id))
      return reply.code(204).send()
    })
  },

  root: deliverActivity,
}
