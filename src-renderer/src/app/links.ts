// Opening a link to an epic or a doc in Outpost: a deep link the OS handed
// over (outpost://<workspace>/epic/<id>), one in the address (#/open/<link>,
// as the browser host takes them), or the service's web address of the item
// pasted into the palette or a search. The item opens in the workspace the
// link names: the current one, or another the user signed in to.
import { parseItemLink, type ItemLink } from '../../../src-shared/links.ts'
import { messageOf } from '../lib/errors.ts'
import { notices } from '../lib/notices.svelte.ts'
import { router } from '../lib/router.svelte.ts'
import { session } from './session.svelte.ts'

/** What a link opens, in words ("Open epic 12", "Open the doc"), or undefined when the text is no such link. */
export function linkTitle(text: string): string | undefined {
  const link = parseItemLink(text)
  if (!link) return undefined
  const what = link.kind === 'epic' ? `epic ${link.id}` : 'the doc'
  const here = session.current?.workspaceSlug.toLowerCase() === link.workspace
  return here ? `Open ${what}` : `Open ${what} in ${link.workspace}`
}

/** Opens the item a link names; false when the text is no link to an epic or a doc. */
export async function openItemLink(text: string): Promise<boolean> {
  const link = parseItemLink(text)
  if (!link) return false
  const named = (slug: string) => slug.toLowerCase() === link.workspace
  if (!session.current || !named(session.current.workspaceSlug)) {
    const other = session.accounts.find((a) => named(a.workspaceSlug))
    if (!other) {
      notices.show(
        `That link is to the workspace “${link.workspace}”, which Outpost is not signed in to: add it in Settings, then open the link again.`,
        'error',
      )
      return true
    }
    try {
      await session.switchTo(other.id)
    } catch (error) {
      notices.show(messageOf(error), 'error')
      return true
    }
  }
  router.go(routeOf(link))
  return true
}

function routeOf(link: ItemLink) {
  return link.kind === 'epic' ? ({ section: 'epics', id: link.id } as const) : ({ section: 'docs', id: link.id } as const)
}
