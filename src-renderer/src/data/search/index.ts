export { createSearch, SEARCH_MARKS } from './search.ts'
export { createDeferredSearch } from './deferred.ts'
export type { LocalSearch, QueryOptions, SearchKind, SearchOptions, SearchResult, SearchStats } from './search.ts'
