// Where the spec and the real service's published API description differ, the spec decides what
// this service does (docs/service.md, "Where the spec and the published API description differ").
// Each entry names the findings of the contract check (testing/contract/check.ts) that such a
// decision explains: the side, the operation (`v3 listEpics`), the place (`*.planner_id`,
// `query.content_format`) and the problem, each as narrow as the difference. A finding no entry
// explains is a bug; an entry that explains nothing recorded is stale. Depends on nothing.

export interface SpecDecision {
  /** `answer`: what this service answers; `request`: what Outpost sends. */
  side: 'answer' | 'request'
  /** Matched against `<api> <operationId>`. */
  operation: RegExp
  /** Matched against the place, array indexes as `*`. */
  at: RegExp
  /** Matched against the checker's problem text. */
  problem: RegExp
  /** The spec's words. */
  why: string
}

const NOT_PUBLISHED = /^not in the published schema$/
/** The operations that answer v3 Epics or EpicSlims. */
const V3_EPIC_ANSWERS = /^v3 (?:createEpic|getEpic|updateEpic|listEpics|listEpicsPaginated|listDocumentEpics|listObjectiveEpics|listMilestoneEpics)$/
/** The operations that answer v3 StorySlims. */
const V3_STORY_ANSWERS = /^v3 (?:listEpicStories|listGroupStories|listLabelStories|getExternalLinkStories)$/

export const SPEC_DECISIONS: readonly SpecDecision[] = [
  {
    side: 'answer',
    operation: V3_EPIC_ANSWERS,
    at: /^(?:(?:data\.)?\*\.)?planner_(?:id|name|plugin_id|url)$/,
    problem: NOT_PUBLISHED,
    why: 'Spec part 1 §2.3, Epic (v3): "planner_id uuid, planner_name str, planner_plugin_id uuid, planner_url str (link to an external planning tool)"; EpicSlim has the same fields.',
  },
  {
    side: 'answer',
    operation: /^v4 (?:listEpicWorkflowStates|getEpicWorkflow)$/,
    at: /^(?:entities\.\*|entity\.epic_states\.entities\.\*)\.uri$/,
    problem: NOT_PUBLISHED,
    why: 'Spec part 1 §2.1: "Every v4 resource carries entity_type (str) and uri (str)" — the EpicState too.',
  },
  {
    side: 'answer',
    operation: /^v4 getEpicWorkflow$/,
    at: /^entity\.uri$/,
    problem: NOT_PUBLISHED,
    why: 'Spec part 1 §2.1: "Every v4 resource carries entity_type (str) and uri (str)" — the EpicWorkflow too.',
  },
  {
    side: 'answer',
    operation: /^v4 getWhoami$/,
    at: /^entity\.uri$/,
    problem: NOT_PUBLISHED,
    why: 'Spec part 1 §2.1: "Every v4 resource carries entity_type (str) and uri (str)" — the Whoami too.',
  },
  {
    side: 'answer',
    operation: /^v4 getWhoami$/,
    at: /^entity\.workspace\.uri$/,
    problem: NOT_PUBLISHED,
    why: 'Spec part 1 §2.1: a v4 slim reference is "object with entity_type, id, name, uri"; Whoami has "workspace (workspace slim with slug str)".',
  },
  {
    side: 'answer',
    operation: /^v3 (?:createGenericIntegration|getGenericIntegration)$/,
    at: /^\(answer\)$/,
    problem: /^published with no content$/,
    why: 'Spec part 2 §4.4: POST /integrations/webhook "201-class response is the Webhook integration; the id is used later"; GET /integrations/webhook/{id} "200 Webhook integration".',
  },
  {
    side: 'answer',
    operation: V3_STORY_ANSWERS,
    at: /^\*\.unresolved_blocker_comments$/,
    problem: NOT_PUBLISHED,
    why: 'Spec part 1 §2.3, StorySlim (v3): "… unresolved_blocker_comments list<int> …".',
  },
  {
    side: 'answer',
    operation: /^v3 (?:listObjectiveEpics|listMilestoneEpics)$/,
    at: /^\*\.stats\.average_(?:cycle|lead)_time$/,
    problem: NOT_PUBLISHED,
    why: 'Spec part 1 §2.3, Epic stats: "milestone-scoped lists add average_cycle_time, average_lead_time".',
  },
  {
    side: 'answer',
    operation: /^v3 (?:listCustomFields|getCustomField|updateCustomField)$/,
    at: /^(?:\*\.)?description$/,
    problem: /^maxLength: must NOT have more than 512 characters$/,
    why: 'Spec part 2 §8: "custom field … description 1024"; §4.4 PUT /custom-fields/{id} takes a description.',
  },
  {
    side: 'answer',
    operation: /^v3 \w+$/,
    at: /^(?:\*\.)?(?:(?:categories|labels|story_contents\.labels)\.\*\.)?color$/,
    problem: /^pattern: must match pattern "\^#\[a-fA-F0-9\]\{6\}\$"$/,
    why: 'Spec part 1 §2.1: "Color values: CSS hexadecimal strings prefixed with \'#\'" — #rgb, #rgba and #rrggbbaa as well as #rrggbb.',
  },
]
