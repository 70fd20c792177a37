// v3 Webhook integration (spec part 1 §2.3), its request bodies (part 2 §4.4),
// and the v1 payload the service POSTs to every enabled integration (part 2 §6).
import { Type, type Static } from 'typebox'
import { LIMITS, Nullable } from '../common.ts'

/** Longest secret accepted (the real service's CreateGenericIntegration says 128). */
export const WEBHOOK_SECRET_MAX = 128

/** The scheme and shape are checked by isWebhookUrl, which gives a clearer message than a pattern would. */
export const WebhookUrl = Type.String({ maxLength: LIMITS.url })
export const WebhookSecret = Type.String({ minLength: 1, maxLength: WEBHOOK_SECRET_MAX })

/** An absolute http(s) URL with a host: the only kind of address deliveries go to. */
export function isWebhookUrl(value: string): boolean {
  if (/\s/.test(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

export const WebhookIntegrationV3 = Type.Object({
  entity_type: Type.Literal('integration'),
  webhook_url: Type.String(),
  disabled: Type.Boolean(),
  type: Type.Literal('generic'),
  creator_id: Type.String({ format: 'uuid' }),
  updated_at: Type.String(),
  id: Type.Integer(),
  has_secret: Type.Boolean(),
  created_at: Type.String(),
})
export type WebhookIntegrationV3 = Static<typeof WebhookIntegrationV3>

export const CreateWebhookIntegrationV3 = Type.Object(
  {
    webhook_url: WebhookUrl,
    secret: Type.Optional(WebhookSecret),
  },
  { additionalProperties: false },
)
export type CreateWebhookIntegrationV3 = Static<typeof CreateWebhookIntegrationV3>

/**
 * Not shown in the spec: any subset; `secret: null` removes the secret. The
 * secret's maxLength (WEBHOOK_SECRET_MAX) is checked by the service rather than
 * here: inside a null union a too-long string would fail as a schema mismatch (400)
 * instead of the 422 every other string limit gives.
 */
export const UpdateWebhookIntegrationV3 = Type.Object(
  {
    webhook_url: Type.Optional(WebhookUrl),
    secret: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type UpdateWebhookIntegrationV3 = Static<typeof UpdateWebhookIntegrationV3>

/** `{old, new}` for scalar fields; `{adds, removes}` for id lists, as the real v1 payload has. */
export const WebhookChange = Type.Object({
  old: Type.Optional(Type.Unknown()),
  new: Type.Optional(Type.Unknown()),
  adds: Type.Optional(Type.Array(Type.Unknown())),
  removes: Type.Optional(Type.Array(Type.Unknown())),
})
export type WebhookChange = Static<typeof WebhookChange>

export const WebhookAction = Type.Object({
  id: Type.Union([Type.Integer(), Type.String()]),
  entity_type: Type.String(),
  action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
  name: Type.Optional(Type.String()),
  app_url: Type.Optional(Type.String()),
  changes: Type.Optional(Type.Record(Type.String(), WebhookChange)),
})
export type WebhookAction = Static<typeof WebhookAction>

export const WebhookReference = Type.Object(
  {
    id: Type.Union([Type.Integer(), Type.String()]),
    entity_type: Type.String(),
    name: Type.String(),
    type: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
)
export type WebhookReference = Static<typeof WebhookReference>

/** The body of one delivery. Redeliveries of an event reuse its id and bytes. */
export const WebhookPayloadV1 = Type.Object({
  id: Type.String({ format: 'uuid' }),
  changed_at: Type.String(),
  primary_id: Type.Union([Type.Integer(), Type.String()]),
  member_id: Type.String(),
  version: Type.Literal('v1'),
  actions: Type.Array(WebhookAction),
  references: Type.Array(WebhookReference),
})
export type WebhookPayloadV1 = Static<typeof WebhookPayloadV1>
