// The published description as referee, before any traffic: every operation Outpost asks the gateway for
// exists there with that method and path, and the checker finds what it is there to find.
import { describe, expect, it } from 'vitest'
import type { JournalLine } from '../../src-server/journal.ts'
import { OPERATIONS, USER_AGENT } from '../../src-shared/api/operations.ts'
import { ContractChecker } from './check.ts'
import { published } from './published.ts'

/** Where an operation of ours is, in the published description's terms. */
const publishedPath = (op: (typeof OPERATIONS)[keyof typeof OPERATIONS]) =>
  op.api === 'v3' ? `/api/v3${op.path}` : 'root' in op && op.root ? `/api/v4${op.path}` : `/api/v4/{workspace-slug}${op.path}`
const template = (path: string) => path.replace(/\{[^}]+\}/g, '{}')

describe('the published API description', () => {
  it('has every operation of src-shared/api/operations.ts, with its method and path', () => {
    const { operations } = published()
    expect(operations.filter((o) => o.api === 'v3')).toHaveLength(141)
    expect(operations.filter((o) => o.api === 'v4')).toHaveLength(247)
    const missing = Object.entries(OPERATIONS)
      .filter(([, op]) => !operations.some((p) => p.api === op.api && p.method === op.method && template(p.path) === template(publishedPath(op))))
      .map(([name, op]) => `${name}: ${op.method} ${publishedPath(op)}`)
    expect(missing).toEqual([])
    // The first build reads the client's types (about 10 s alone; more on a busy machine); later ones read it kept.
  }, 120_000)

  it('tells a literal segment from an integer parameter', () => {
    const { find } = published()
    expect(find('PATCH', '/api/v4/demo/epics/bulk')?.operationId).toBe('bulkUpdateEpics')
    expect(find('PATCH', '/api/v4/demo/epics/12')?.operationId).toBe('updateEpic')
    expect(find('GET', '/api/v3/epics/paginated')?.operationId).toBe('listEpicsPaginated')
    expect(find('GET', '/api/v4/demo/epics/bulk')).toBeUndefined()
  })
})

describe('the contract checker', () => {
  const outpost = (line: Partial<JournalLine>): JournalLine => ({
    method: 'GET',
    url: '/api/v3/epics',
    status: 200,
    agent: USER_AGENT,
    auth: ['shortcut-token', 'service-token'],
    type: null,
    ...line,
  })
  const findings = (...lines: JournalLine[]) => {
    const checker = new ContractChecker()
    for (const line of lines) checker.check(line)
    return checker.report().map((f) => `${f.side} ${f.operation} ${f.at}: ${f.problem}`)
  }

  it('passes a request the published operation accepts', () => {
    expect(findings(outpost({ url: '/api/v3/epics?includes_description=true' }))).toEqual([])
    expect(findings(outpost({ method: 'PUT', url: '/api/v3/linked-files/7', type: 'application/json', body: { name: 'Spec', description: '' } }))).toEqual([])
  })

  it('finds a query parameter, a body key or a value the operation does not take, and a missing auth header', () => {
    expect(findings(outpost({ url: '/api/v3/epics?external_id=x' }))).toEqual(['request v3 listEpics query.external_id: not in the published schema'])
    expect(
      findings(outpost({ method: 'PUT', url: '/api/v3/linked-files/7', type: 'application/json', body: { content_type: 'text/plain', thumbnail_url: '' } })),
    ).toEqual([
      'request v3 updateLinkedFile body.content_type: not in the published schema',
      'request v3 updateLinkedFile body.thumbnail_url: pattern: must match pattern "^https?://.+$"',
    ])
    expect(findings(outpost({ url: '/api/v3/member', auth: ['service-token'] }))).toEqual([
      'request v3 getCurrentMemberInfo (headers): no shortcut-token header',
    ])
    expect(findings(outpost({ url: '/api/v3/nothing-here' }))).toEqual(['request GET /api/v3/nothing-here (operation): not in the published description'])
  })

  it('leaves other clients’ requests alone, but not the answers they get', () => {
    const answer = JSON.stringify([{ id: 1, name: 'No fields of a category' }])
    expect(findings({ ...outpost({ url: '/api/v3/categories?bogus=1', answer }), agent: 'axios/1.7' })).toEqual(
      expect.arrayContaining(['answer v3 listCategories *.entity_type: missing']),
    )
    expect(findings({ ...outpost({ url: '/api/v3/categories?bogus=1' }), agent: null })).toEqual([])
  })

  it('finds an answer key the published schema lacks; a fields= answer may leave fields out', () => {
    const epic = {
      entity_type: 'epic-state',
      id: 1,
      name: 'To Do',
      color: '#aaaaaa',
      description: '',
      position: 1,
      type: 'unstarted',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      global_id: 'g',
    }
    const ok = JSON.stringify({ ...epic })
    const extra = JSON.stringify({ ...epic, surprise: true })
    expect(
      findings(
        outpost({
          url: '/api/v3/epic-workflow',
          answer: JSON.stringify({
            entity_type: 'epic-workflow',
            id: 1,
            created_at: epic.created_at,
            updated_at: epic.updated_at,
            default_epic_state_id: 1,
            epic_states: [JSON.parse(ok)],
          }),
        }),
      ),
    ).toEqual([])
    expect(
      findings(
        outpost({
          url: '/api/v3/epic-workflow',
          answer: JSON.stringify({
            entity_type: 'epic-workflow',
            id: 1,
            created_at: epic.created_at,
            updated_at: epic.updated_at,
            default_epic_state_id: 1,
            epic_states: [JSON.parse(extra)],
          }),
        }),
      ),
    ).toEqual(['answer v3 getEpicWorkflow epic_states.*.surprise: not in the published schema'])
    // ObjectiveSlim requires app_url, entity_type, id, name and uri.
    const slim = JSON.stringify({
      $schema: 'https://x.invalid/s',
      current_items: 1,
      current_page: 1,
      total_items: 1,
      total_pages: 1,
      entities: [{ id: 5, name: 'Only these' }],
    })
    const url = '/api/v4/demo/categories/3/objectives'
    expect(findings(outpost({ url: `${url}?fields=id,name`, auth: ['authorization'], answer: slim }))).toEqual([])
    expect(findings(outpost({ url, auth: ['authorization'], answer: slim }))).toContain('answer v4 listCategoryObjectives entities.*.uri: missing')
  })
})
