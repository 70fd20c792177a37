// "Report a problem…" with crash dumps on the computer: Settings says they can
// hold the token and leaves them out unless the box is ticked; ticked, the
// newest go beside the report, which says what they may hold, as Settings does.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { expect, goTo, screens, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

test('crash dumps go with a problem report only when asked, and both Settings and the report say they can hold the token', async ({
  service,
  outpost,
}, info) => {
  // What Electron's crashReporter leaves in the data folder after a crash.
  const crashes = join(info.outputPath('host'), 'crashes', 'completed')
  mkdirSync(crashes, { recursive: true })
  writeFileSync(join(crashes, '5c0ffee0-crash.dmp'), Buffer.alloc(2048, 1))

  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await goTo(page, 'Settings')
  const section = page.getByRole('region', { name: 'Updates and problems' })
  const include = section.getByRole('checkbox', { name: 'Include crash dumps' })
  await expect(include).not.toBeChecked()
  await expect(include).toHaveAccessibleDescription(/can hold your token, which Outpost cannot take out of them/)

  // Left out, as by default.
  await section.getByRole('button', { name: 'Report a problem…' }).click()
  await expect(section.getByTestId('report-path')).toHaveText(/\.json$/)
  const first = (await section.getByTestId('report-path').textContent())!
  expect(readdirSync(dirname(first))).toEqual([basename(first)])
  const leftOut = JSON.parse(readFileSync(first, 'utf8'))
  expect(leftOut.tokens).toContain('the one on this computer is named below and left out')
  expect(leftOut.crashDumps).toEqual([expect.objectContaining({ file: join('completed', '5c0ffee0-crash.dmp'), bytes: 2048 })])
  expect(leftOut.crashDumps[0].copy).toBeUndefined()

  // Asked for: beside the report, said in place.
  await include.check()
  await section.getByRole('button', { name: 'Report a problem…' }).click()
  await expect(section.getByRole('status')).toContainText(
    'With a crash dump beside it, which can hold your token: send it only to someone you trust with your workspace.',
  )
  const second = (await section.getByTestId('report-path').textContent())!
  expect(second).not.toBe(first)
  const beside = second.replace(/\.json$/, '-crash-dumps')
  expect(readdirSync(beside)).toEqual(['5c0ffee0-crash.dmp'])
  const taken = JSON.parse(readFileSync(second, 'utf8'))
  expect(taken.tokens).toContain('the newest one is copied beside this report, as asked. Send it only to someone you trust with your workspace.')
  expect(taken.crashDumps[0].copy).toBe(`${basename(beside)}/5c0ffee0-crash.dmp`)

  await section.scrollIntoViewIfNeeded()
  await screens(page, info, 'settings-crash-dumps')
  await page.setViewportSize({ width: 800, height: 600 })
  await section.scrollIntoViewIfNeeded()
  await screens(page, info, 'settings-crash-dumps-800x600')
})
