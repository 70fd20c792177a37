// The API's string limits, in a module of plain constants: the renderer shows
// them (a name too long for the service) without bundling the schemas.

/** Requests a token may make (spec part 2 §8): 200 a minute. The service enforces it; the gateway paces to it. */
export const RATE_LIMIT = { max: 200, windowMs: 60_000 } as const

/** String limits of spec part 2 §8, in characters. */
export const LIMITS = {
  categoryName: 128,
  externalId: 128,
  customFieldName: 63,
  customFieldDescription: 1024,
  iconSetIdentifier: 63,
  docTitle: 256,
  docDescription: 1024,
  epicName: 256,
  epicDescription: 100_000,
  commentText: 100_000,
  entityTemplateName: 128,
  groupName: 63,
  groupMentionName: 63,
  milestoneName: 256,
  milestoneDescription: 100_000,
  linkedFileName: 256,
  url: 2048,
  fileName: 1024,
  externalLink: 2048,
} as const

/**
 * Limits the spec does not give, as the service's published API description has them: what a linked file's
 * or an uploaded file's description may hold.
 */
export const PUBLISHED_LIMITS = { linkedFileDescription: 512, fileDescription: 4096 } as const

/** Label limits are not shown in the spec; these match the epic label parameters (see the README). */
export const LABEL_LIMITS = { name: 128, description: 1024 } as const
