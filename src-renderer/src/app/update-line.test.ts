import { describe, expect, it } from 'vitest'
import { updateLine } from './update-line.ts'

describe('the updates line of Settings', () => {
  it('says where updates stand', () => {
    expect(updateLine({ status: 'off', off: 'development', current: '1.0.0' })).toBe('This development build does not update itself.')
    expect(updateLine({ status: 'idle', current: '1.0.0', checkedAt: 1 })).toBe('Outpost is up to date.')
    expect(updateLine({ status: 'downloading', current: '1.0.0', version: '1.1.0', percent: 0 })).toBe('Downloading Outpost 1.1.0 in the background…')
    expect(updateLine({ status: 'ready', current: '1.0.0', version: '1.1.0' })).toBe('Outpost 1.1.0 is ready: restart to use it.')
  })
})
