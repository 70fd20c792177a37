// Packaging cannot run here (electron-builder downloads Electron), so its
// inputs are checked instead: the config against electron-builder's own JSON
// schema and its own validation, the targets, the icons made from the one
// source, and the afterPack hook flipping fuses in an Electron-like binary.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses'
import Ajv from 'ajv'
import { afterAll, describe, expect, it, vi } from 'vitest'
import config from '../electron-builder.config.ts'
import afterPack, { executablePath, fusesFor } from './after-pack.mjs'
import { ICON_SIZES, renderPng } from './icons.mjs'

const require = createRequire(import.meta.url)
const root = resolve(import.meta.dirname, '..')
const scheme = JSON.parse(readFileSync(join(root, 'node_modules/app-builder-lib/scheme.json'), 'utf8'))

function schemaValidator() {
  // Ajv as electron-builder sets it up; `typeof` (from ajv-keywords) is the one keyword it adds.
  const ajv = new Ajv({ allErrors: true, strict: false })
  ajv.addKeyword({ keyword: 'typeof', validate: (type: string, data: unknown) => typeof data === type })
  return ajv.compile(scheme)
}

const targetsOf = (platform: unknown) => ((platform as { target: Array<{ target: string; arch: string[] }> }).target ?? []).map((t) => t.target)

describe('the electron-builder config', () => {
  it('matches electron-builder’s own JSON schema', () => {
    const validate = schemaValidator()
    const valid = validate(JSON.parse(JSON.stringify(config)))
    expect(validate.errors ?? []).toEqual([])
    expect(valid).toBe(true)
  })

  it('passes electron-builder’s own validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js')
    await expect(validateConfiguration(structuredClone(config), { isEnabled: false, add: () => undefined })).resolves.toBeUndefined()
  })

  it('would catch a mistake (the schema check is not a formality)', async () => {
    const validate = schemaValidator()
    expect(validate({ ...config, win: { targt: 'nsis' } })).toBe(false)
    expect(validate({ ...config, asar: 'yes' })).toBe(false)
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js')
    await expect(validateConfiguration({ ...config, linux: { target: 'AppImage', icn: 'x' } }, { isEnabled: false, add: () => undefined })).rejects.toThrow(
      /Invalid configuration object/,
    )
  })

  it('builds NSIS for Windows, dmg and zip for macOS, AppImage and deb for Linux, in an asar, with native modules rebuilt', () => {
    expect(targetsOf(config.win)).toEqual(['nsis'])
    expect(targetsOf(config.mac)).toEqual(['dmg', 'zip'])
    expect(targetsOf(config.linux)).toEqual(['AppImage', 'deb'])
    expect(config.asar).toBe(true)
    expect(config.npmRebuild).toBe(true)
    expect(config.afterPack).toBe('./scripts/after-pack.mjs')
    expect(config.files).toContain('!node_modules/better-sqlite3/**')
  })

  it('publishes to a generic update feed, whose URL OUTPOST_UPDATE_URL sets', async () => {
    expect(config.publish).toEqual([{ provider: 'generic', url: 'https://updates.outpost.invalid/${os}' }])
    const previous = process.env.OUTPOST_UPDATE_URL
    process.env.OUTPOST_UPDATE_URL = 'https://example.test/outpost/${os}'
    try {
      vi.resetModules()
      const fresh = (await import('../electron-builder.config.ts')) as { default: typeof config }
      expect(fresh.default.publish).toEqual([{ provider: 'generic', url: 'https://example.test/outpost/${os}' }])
      const validate = schemaValidator()
      expect(validate(JSON.parse(JSON.stringify(fresh.default)))).toBe(true)
    } finally {
      if (previous === undefined) delete process.env.OUTPOST_UPDATE_URL
      else process.env.OUTPOST_UPDATE_URL = previous
    }
    // electron-updater is a runtime dependency, so it is packed with the app.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    expect(pkg.dependencies['electron-updater']).toBeDefined()
  })
})

describe('the icons', () => {
  const pngSize = (file: string) => {
    const png = readFileSync(file)
    return [png.readUInt32BE(16), png.readUInt32BE(20)]
  }

  it('exist at every size and for every installer', () => {
    for (const size of ICON_SIZES) expect(pngSize(join(root, 'resources/icons', `${size}x${size}.png`))).toEqual([size, size])
    const ico = readFileSync(join(root, 'resources/icon.ico'))
    expect(ico.readUInt16LE(2)).toBe(1) // type 1: icon
    expect(ico.readUInt16LE(4)).toBeGreaterThanOrEqual(5)
    expect(readFileSync(join(root, 'resources/icon.icns')).subarray(0, 4).toString('latin1')).toBe('icns')
    expect(config.win?.icon).toBe('resources/icon.ico')
    expect(config.mac?.icon).toBe('resources/icon.icns')
    expect(config.linux?.icon).toBe('resources/icons')
  })

  it('are up to date with resources/icon.svg', () => {
    const svg = readFileSync(join(root, 'resources/icon.svg'))
    for (const size of [16, 256]) {
      expect(Buffer.compare(renderPng(svg, size), readFileSync(join(root, 'resources/icons', `${size}x${size}.png`))), `${size}px: run npm run icons`).toBe(0)
    }
  })
})

describe('the afterPack hook', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-fuses-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('turns off running as Node, NODE_OPTIONS and the inspector, and turns on cookie encryption and asar-only loading', () => {
    for (const platform of ['linux', 'win32', 'darwin']) {
      const fuses = fusesFor(platform) as Record<number, boolean>
      expect(fuses[FuseV1Options.RunAsNode]).toBe(false)
      expect(fuses[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false)
      expect(fuses[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false)
      expect(fuses[FuseV1Options.EnableCookieEncryption]).toBe(true)
      expect(fuses[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true)
      expect(fuses[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(platform === 'linux' ? undefined : true)
    }
  })

  it('finds the binary electron-builder packed on each platform', () => {
    const packager = { appInfo: { productFilename: 'Outpost' }, executableName: 'outpost' }
    expect(executablePath({ appOutDir: '/o', electronPlatformName: 'linux', packager })).toBe(join('/o', 'outpost'))
    expect(executablePath({ appOutDir: '/o', electronPlatformName: 'win32', packager })).toBe(join('/o', 'Outpost.exe'))
    expect(executablePath({ appOutDir: '/o', electronPlatformName: 'darwin', packager })).toBe(join('/o', 'Outpost.app'))
  })

  it('flips the fuse wire of a binary', async () => {
    // An Electron binary's fuse wire: the sentinel, version 1, 8 fuses, each '1' (on) as shipped.
    const binary = join(dir, 'outpost')
    writeFileSync(
      binary,
      Buffer.concat([
        Buffer.from('\x7fELF...'),
        Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'),
        Buffer.from([1, 8]),
        Buffer.from('11111111'),
        Buffer.from('...'),
      ]),
    )
    await afterPack({ appOutDir: dir, electronPlatformName: 'linux', packager: { executableName: 'outpost', appInfo: { productFilename: 'Outpost' } } })
    const wire = (await getCurrentFuseWire(binary)) as unknown as Record<number, number>
    const off = 48
    const on = 49
    expect(wire[FuseV1Options.RunAsNode]).toBe(off)
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(off)
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(off)
    expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(on)
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(on)
    expect(wire[FuseV1Options.GrantFileProtocolExtraPrivileges]).toBe(off)
  })
})
