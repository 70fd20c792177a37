// Names from the service or a drop, as the last part of a path in our folders:
// the hostile ones stay inside, and every result can be written on disk here.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SAFE_NAME_MAX_BYTES, safeFileName } from './safe-name.ts'
import { newStagedPath } from './staging.ts'

const dir = mkdtempSync(join(tmpdir(), 'outpost-safe-name-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('safeFileName', () => {
  it('keeps no separator, dot segment or leading dot', () => {
    expect(safeFileName('../../evil.txt')).toBe('evil.txt')
    expect(safeFileName('..\\..\\evil')).toBe('evil')
    expect(safeFileName('/etc/passwd')).toBe('passwd')
    expect(safeFileName('C:\\Windows\\win.ini')).toBe('win.ini')
    expect(safeFileName('\\\\server\\share\\x.txt')).toBe('x.txt')
    expect(safeFileName('..')).toBe('_')
    expect(safeFileName('.')).toBe('_')
    expect(safeFileName('../')).toBe('_')
    expect(safeFileName('/')).toBe('file')
  })

  it('replaces control characters (NUL included) and those Windows refuses', () => {
    expect(safeFileName('evil\u0000.txt')).toBe('evil_.txt')
    expect(safeFileName('a\u007fb\r\n.txt')).toBe('a_b__.txt')
    expect(safeFileName('a<b>c|d".txt')).toBe('a_b_c_d_.txt')
  })

  it('never names a Windows device, whatever the case or extension', () => {
    for (const device of ['CON', 'con', 'PRN.txt', 'aux.tar.gz', 'NUL', 'nul .txt', 'COM1', 'com9.log', 'LPT1.txt', 'lpt²', 'CONIN$', 'CLOCK$']) {
      expect(safeFileName(device), device).toBe(`_${device}`)
    }
    for (const fine of ['CONSOLE.txt', 'icon.png', 'COM10', 'nullable.ts', 'LPT.txt']) expect(safeFileName(fine), fine).toBe(fine)
  })

  it('ends neither in a dot nor in a space (Windows drops them, so two names would meet)', () => {
    expect(safeFileName('report.')).toBe('report_')
    expect(safeFileName('report. . ')).toBe('report_')
    expect(safeFileName('CON.')).toBe('CON_')
  })

  it('fits the file system in bytes, keeping the extension and whole characters', () => {
    const long = safeFileName(`${'数'.repeat(300)}.pdf`)
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(SAFE_NAME_MAX_BYTES)
    expect(long.endsWith('数.pdf')).toBe(true)
    const emoji = safeFileName('😀'.repeat(100))
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(SAFE_NAME_MAX_BYTES)
    expect(emoji).toBe('😀'.repeat(SAFE_NAME_MAX_BYTES / 4))
    expect(safeFileName('a'.repeat(1024))).toBe('a'.repeat(SAFE_NAME_MAX_BYTES))
  })

  it('gives names that can be written here, staged and downloading prefixes included', () => {
    const names = ['../../evil.txt', 'evil\u0000', 'CON', `${'数'.repeat(300)}.pdf`, `${'é'.repeat(1024)}`, '😀'.repeat(300), 'x'.repeat(1024)]
    for (const [i, name] of names.entries()) {
      const safe = safeFileName(name)
      // The longest forms our folders hold: a staged copy, and a download under way.
      writeFileSync(newStagedPath(dir, name), String(i))
      writeFileSync(join(dir, `.${safe}.${'0'.repeat(12)}.part`), String(i))
    }
    expect(readdirSync(dir)).toHaveLength(names.length * 2)
  })
})
