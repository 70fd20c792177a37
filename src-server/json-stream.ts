// A long list answer, sent as it is rendered. Rendering and encoding the v3 list of every epic in one go holds
// the service's one thread for a quarter of a second at 10,000 epics, and more than a second at 50,000: every
// other request waits meanwhile, where a production service answers them alongside. Rendered a slice at a time,
// with other requests let through between slices, the list costs them a slice's wait at most.
import { Readable } from 'node:stream'

/** Items rendered between two turns of the event loop: about 10 ms of the v3 epic list's work. */
const SLICE = 500
/**
 * Characters (about bytes) sent at once: a compressor fed small pieces compresses worse (brotli at the service's quality loses
 * about a tenth on pieces of a megabyte), so slices are sent together up to this.
 */
const CHUNK = 4 * 2 ** 20

/** `items` as the text of a JSON array of `render(item)`, a slice at a time, yielding between slices. */
export function jsonArrayStream<T>(items: readonly T[], render: (item: T) => unknown): Readable {
  async function* text(): AsyncGenerator<Buffer> {
    let pending = '['
    for (let i = 0; i < items.length; i += SLICE) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve))
      const slice = JSON.stringify(items.slice(i, i + SLICE).map(render))
      pending += `${i === 0 ? '' : ','}${slice.slice(1, -1)}`
      if (pending.length >= CHUNK) {
        yield Buffer.from(pending)
        pending = ''
      }
    }
    yield Buffer.from(`${pending}]`)
  }
  return Readable.from(text(), { objectMode: false })
}
