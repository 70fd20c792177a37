// How the renderer is cut into files for a fast start (electron.vite.config.ts):
//
// - `bootChunks` puts what main.ts needs to paint the last screen in one small
//   chunk, and the app (src-renderer/src/start.ts and all it imports
//   statically) in one chunk, rather than the twenty-odd shared pieces the
//   bundler would cut it into: a start then loads three files, not twenty-five.
// - `preloadAppChunk` has index.html preload the app's chunk, which main.ts
//   imports only once the last screen is painted: its code loads and compiles
//   while that paints, and the import finds it ready.
import type { Plugin } from 'vite'

interface ModuleGraph {
  getModuleInfo(id: string): { importedIds: readonly string[] } | null
}

/** The modules `from` imports statically, itself included. */
function reachable(from: string, graph: ModuleGraph): Set<string> {
  const seen = new Set<string>()
  const visit = (id: string) => {
    if (seen.has(id)) return
    seen.add(id)
    for (const imported of graph.getModuleInfo(id)?.importedIds ?? []) visit(imported)
  }
  visit(from)
  return seen
}

/**
 * `output.codeSplitting` groups: 'boot', what `boot` imports statically (not
 * `boot` itself: it awaits the app's import at its top level, and a module the
 * app imports from must not, or neither would finish), then 'app', what `app`
 * imports statically less boot's.
 */
export function bootChunks(boot: string, app: string) {
  let modules: { boot: Set<string>; app: Set<string> } | undefined
  const modulesOf = (graph: ModuleGraph) => {
    if (!modules) {
      const booted = reachable(boot, graph)
      booted.delete(boot)
      modules = { boot: booted, app: reachable(app, graph) }
    }
    return modules
  }
  return {
    groups: [
      // Boot's modules go to 'boot' first (the higher priority); the app's chunk imports them from there.
      { priority: 2, name: (id: string, graph: ModuleGraph) => (modulesOf(graph).boot.has(id) ? 'boot' : null) },
      { priority: 1, name: (id: string, graph: ModuleGraph) => (modulesOf(graph).app.has(id) ? 'app' : null) },
    ],
  }
}

export function preloadAppChunk(entry = '/src/start.ts'): Plugin {
  return {
    name: 'outpost:preload-app-chunk',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle) return undefined
        const app = Object.values(bundle).find((output) => output.type === 'chunk' && output.facadeModuleId?.endsWith(entry))
        if (!app || app.type !== 'chunk') throw new Error(`preload-app-chunk: no chunk for ${entry}`)
        const files: string[] = []
        const add = (fileName: string) => {
          const chunk = bundle[fileName]
          if (files.includes(fileName) || chunk?.type !== 'chunk') return
          files.push(fileName)
          for (const imported of chunk.imports) add(imported)
        }
        add(app.fileName)
        return files
          .filter((fileName) => !html.includes(`/${fileName}"`))
          .map((fileName) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${fileName}` }, injectTo: 'head' as const }))
      },
    },
  }
}
