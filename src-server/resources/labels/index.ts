// Labels: v3 list, create and the stories of a label. Labels are also made by
// name wherever a body carries `labels` (see findOrCreateLabel).
import { Type } from 'typebox'
import { Id } from '../../../src-shared/api/common.ts'
import { CreateLabelV3, ListLabelsQueryV3 } from '../../../src-shared/api/v3/labels.ts'
import { StoriesQueryV3 } from '../../../src-shared/api/v3/stories.ts'
import type { Resource } from '../../resource.ts'
import { origin } from '../../pages.ts'
import { stories, storiesV3 } from '../stories/story.ts'
import { createLabel, findOrCreateLabel, labels, labelV3 } from './label.ts'

export { findOrCreateLabel, labelV3, labelsV3, type LabelRecord } from './label.ts'

const DEMO_LABELS: [string, string, string][] = [
  ['customer-request', '#1e88e5', 'Asked for by a customer.'],
  ['performance', '#fb8c00', 'Makes something faster or lighter.'],
  ['security', '#e53935', 'Protects tokens, data or the machine.'],
  ['offline', '#5e35b1', 'Behaviour without a network.'],
  ['tech-debt', '#757575', 'Pays back a shortcut taken earlier.'],
  ['ux', '#00897b', 'How it looks and feels.'],
]

export const labelsResource: Resource = {
  seed: ({ ctx }) => {
    for (const [name, color, description] of DEMO_LABELS) findOrCreateLabel(ctx, { name, color, description })
  },

  v3: (app, { ctx }) => {
    app.get('/labels', { schema: { querystring: ListLabelsQueryV3 } }, async (req) => {
      const o = origin(req)
      return labels(ctx)
        .all()
        .map((l) => labelV3(ctx, o, l))
    })

    // Not shown in the spec; the real v3 has it (the official client's createLabel).
    app.post('/labels', { schema: { body: CreateLabelV3 } }, async (req, reply) => {
      const label = ctx.tx(() => createLabel(ctx, req.body))
      return reply.code(201).send(labelV3(ctx, origin(req), label))
    })

    app.get('/labels/:id/stories', { schema: { params: Type.Object({ id: Id }), querystring: StoriesQueryV3 } }, async (req) => {
      const id = labels(ctx).require(req.params.id).id
      const o = origin(req)
      const tagged = stories(ctx)
        .all()
        .filter((s) => s.label_ids.includes(id))
      return storiesV3(ctx, o, tagged, req.query.includes_description === true)
    })
  },
}
