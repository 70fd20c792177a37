// Which paths count as inside our folders, by name (the handler tests cover
// the symlink cases on disk), and the names of staged copies.
import { join, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PickedFiles } from '../ipc/picked-files.ts'
import { isInside } from './folders.ts'
import { newStagedPath, stagedFileName } from './staging.ts'

const staging = join(sep, 'data', 'staging')

describe('isInside', () => {
  it('takes only paths strictly below the folder', () => {
    expect(isInside(staging, join(staging, 'a.txt'))).toBe(true)
    expect(isInside(staging, join(staging, 'x', 'a.txt'))).toBe(true)
    expect(isInside(staging, join(staging, '..foo'))).toBe(true)
    expect(isInside(staging, staging)).toBe(false)
    expect(isInside(staging, `${staging}${sep}`)).toBe(false)
    expect(isInside(staging, `${staging}2${sep}a.txt`)).toBe(false)
    expect(isInside(staging, join(staging, '..', 'accounts.json'))).toBe(false)
    expect(isInside(staging, `${staging}${sep}..${sep}accounts.json`)).toBe(false)
    expect(isInside(staging, 'a.txt')).toBe(false)
  })
})

describe('PickedFiles', () => {
  it('counts staged copies as ours, by folder, and nothing else that was not picked', () => {
    const picked = new PickedFiles({ ownFolders: [staging], max: 2 })
    expect(picked.has(join(staging, 'copy.png'))).toBe(true)
    expect(picked.has(`${staging}${sep}..${sep}secret`)).toBe(false)
    const dropped = join(sep, 'home', 'me', 'photo.png')
    expect(picked.has(dropped)).toBe(false)
    picked.add(dropped)
    picked.add(join(sep, 'b'))
    picked.add(join(sep, 'c'))
    // The oldest drop is forgotten past `max`; staged copies are not drops and stay.
    expect(picked.has(dropped)).toBe(false)
    expect(picked.has(join(staging, 'copy.png'))).toBe(true)
  })
})

describe('staged names', () => {
  it('keep the original name after a unique prefix, and give it back', () => {
    const path = newStagedPath(staging, 'Q3 plan: final?.pdf')
    expect(path.startsWith(staging + sep)).toBe(true)
    expect(stagedFileName(path)).toBe('Q3 plan_ final_.pdf')
    expect(newStagedPath(staging, 'a.txt')).not.toBe(newStagedPath(staging, 'a.txt'))
    expect(stagedFileName(join(staging, 'plain.txt'))).toBe('plain.txt')
  })
})
