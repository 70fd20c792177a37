// Server-sent events to connected doc editors: each open stream follows one doc
// and hears of its updates and its deletion (spec part 2 §6). Fed from the
// activity feed, so every committed doc write reaches every stream, v3 or v4.
import type { ServerResponse } from 'node:http'
import type { FastifyReply } from 'fastify'
import type { DocEvent } from '../../../src-shared/api/v3/docs.ts'
import type { Activity, ServiceContext } from '../../context.ts'
import type { DocRecord } from './store.ts'

/** A comment line now and then keeps proxies and idle timeouts from closing quiet streams. */
const HEARTBEAT_MS = 25_000

export class DocStreams {
  private readonly streams = new Map<string, Set<ServerResponse>>()
  private readonly heartbeat: NodeJS.Timeout
  private readonly listener = (a: Activity) => this.onActivity(a)
  private seq = 0

  constructor(private readonly ctx: ServiceContext) {
    ctx.activity.on('activity', this.listener)
    this.heartbeat = setInterval(() => this.broadcast(': keep-alive\n\n'), HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  /** Takes the reply over and keeps it open until the doc is deleted, the client leaves or the service closes. */
  open(reply: FastifyReply, doc: DocRecord): void {
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    let set = this.streams.get(doc.id)
    if (!set) this.streams.set(doc.id, (set = new Set()))
    set.add(res)
    res.on('close', () => this.forget(doc.id, res))
    res.on('error', () => this.forget(doc.id, res))
    res.write('retry: 3000\n\n')
    this.send(res, { type: 'doc-ready', doc_id: doc.id, title: doc.title, updated_at: doc.updated_at })
  }

  /** Open streams, for tests and logs. */
  count(docId?: string): number {
    if (docId !== undefined) return this.streams.get(docId)?.size ?? 0
    let n = 0
    for (const s of this.streams.values()) n += s.size
    return n
  }

  /** Ends every stream; called when the service closes so close() never waits on an editor. */
  close(): void {
    clearInterval(this.heartbeat)
    this.ctx.activity.off('activity', this.listener)
    for (const set of this.streams.values()) for (const res of set) res.end()
    this.streams.clear()
  }

  private onActivity(a: Activity): void {
    if (a.entity_type !== 'doc') return
    const id = String(a.id)
    const set = this.streams.get(id)
    if (!set || set.size === 0) return
    if (a.action === 'delete') {
      for (const res of set) {
        this.send(res, { type: 'doc-deleted', doc_id: id, member_id: a.member_id, deleted_at: a.changed_at })
        res.end()
      }
      this.streams.delete(id)
      return
    }
    if (a.action !== 'update') return
    const doc = this.ctx.col<DocRecord>('doc').get(id)
    if (!doc) return
    const event: DocEvent = {
      type: 'doc-updated',
      doc_id: id,
      title: doc.title,
      updated_at: doc.updated_at,
      member_id: a.member_id,
      changed: Object.keys(a.changes ?? {}),
    }
    for (const res of set) this.send(res, event)
  }

  private send(res: ServerResponse, event: DocEvent): void {
    if (res.writableEnded || res.destroyed) return
    res.write(`id: ${++this.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  }

  private broadcast(text: string): void {
    for (const set of this.streams.values()) for (const res of set) if (!res.writableEnded && !res.destroyed) res.write(text)
  }

  private forget(docId: string, res: ServerResponse): void {
    const set = this.streams.get(docId)
    set?.delete(res)
    if (set && set.size === 0) this.streams.delete(docId)
  }
}
