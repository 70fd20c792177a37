// npm run icons: every icon of the installers from the one source,
// resources/icon.svg. PNGs at 16..1024 (Linux takes the folder; the 1024 one is
// the source of the others), icon.ico for Windows and icon.icns for macOS.
// The results are committed, so packaging does not depend on this step; run
// it again whenever icon.svg changes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Resvg } from '@resvg/resvg-js'
import png2icons from 'png2icons'

export const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024]

const resources = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources')

export function renderPng(svg, size) {
  return new Resvg(svg, { fitTo: { mode: 'width', value: size } }).render().asPng()
}

export function writeIcons(dir = resources) {
  const svg = readFileSync(join(dir, 'icon.svg'))
  mkdirSync(join(dir, 'icons'), { recursive: true })
  const written = []
  let largest
  for (const size of ICON_SIZES) {
    // Rendered from the vector at each size: sharper than scaling one bitmap down.
    const png = renderPng(svg, size)
    const file = join(dir, 'icons', `${size}x${size}.png`)
    writeFileSync(file, png)
    written.push(file)
    largest = png
  }
  writeFileSync(join(dir, 'icon.png'), largest)
  const ico = png2icons.createICO(largest, png2icons.BEZIER, 0, true, true)
  const icns = png2icons.createICNS(largest, png2icons.BEZIER, 0)
  if (!ico || !icns) throw new Error('png2icons could not make icon.ico or icon.icns')
  writeFileSync(join(dir, 'icon.ico'), ico)
  writeFileSync(join(dir, 'icon.icns'), icns)
  written.push(join(dir, 'icon.png'), join(dir, 'icon.ico'), join(dir, 'icon.icns'))
  return written
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of writeIcons()) console.log(file)
}
