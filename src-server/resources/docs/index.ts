// Docs and collections: v3 and v4 routes behind their feature switches
// (403 DisabledFeatureError when off), doc-epic relations, and the server-sent
// events editors receive when a doc changes or is deleted.
import type { ApiApp, Deps, Resource } from '../../resource.ts'
import type { Feature, ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { DocStreams } from './events.ts'
import { seedDocs } from './seed.ts'
import { docRoutesV3 } from './v3.ts'
import { collectionRoutesV4, docRoutesV4 } from './v4.ts'

/** One set of open editor streams per running service, shared by v3 and v4. */
const streamsOf = new WeakMap<ServiceContext, DocStreams>()

function streams(app: ApiApp, ctx: ServiceContext): DocStreams {
  let s = streamsOf.get(ctx)
  if (!s) {
    s = new DocStreams(ctx)
    streamsOf.set(ctx, s)
  }
  const opened = s
  // Open streams must not hold up close(): end them when the service closes.
  app.addHook('onClose', async () => {
    opened.close()
    streamsOf.delete(ctx)
  })
  return opened
}

/** Routes registered in their own scope, refused while the feature is off. */
function behind(app: ApiApp, ctx: ServiceContext, feature: Feature, routes: (scope: ApiApp) => void): void {
  app.register(async (scope: ApiApp) => {
    scope.addHook('onRequest', async () => {
      if (!ctx.featureEnabled(feature)) throw ApiError.disabledFeature(feature)
    })
    routes(scope)
  })
}

export const docsResource: Resource = {
  seed: seedDocs,

  v3: (app, deps: Deps) => {
    const s = streams(app, deps.ctx)
    behind(app, deps.ctx, 'docs', (scope) => docRoutesV3(scope, deps, s))
  },

  v4: (app, deps: Deps) => {
    const s = streams(app, deps.ctx)
    behind(app, deps.ctx, 'docs', (scope) => docRoutesV4(scope, deps, s))
    behind(app, deps.ctx, 'collections', (scope) => collectionRoutesV4(scope, deps))
  },
}
