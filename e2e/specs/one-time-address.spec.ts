// `npm start` without the Electron binary hands the browser a one-time address
// (its command line is readable by every local user): the page trades the
// code for the host's key before the app starts, takes it out of the address
// bar, and works as usual; the same address opened again is refused, and the
// page says why instead of hanging.
import { expect, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

test('a one-time address opens the app once, and the same address again is refused with why', async ({ outpost, service }) => {
  const address = outpost.host.host.oneTimeUrl()
  const errors: string[] = []
  const first = await outpost.context.newPage()
  first.on('pageerror', (error) => errors.push(error.message))
  await first.goto(address)
  await signIn(first, service)
  await waitForBootstrap(first)
  expect(first.url()).not.toContain('outpost-code')
  // A reload of the tab keeps working: the key, not the spent code, is kept for it.
  await first.reload()
  await expect(first.getByRole('navigation', { name: 'Outpost' })).toBeVisible()

  const again = await outpost.context.newPage()
  again.on('pageerror', (error) => errors.push(error.message))
  await again.goto(address)
  await expect(again.getByRole('alert')).toContainText('Outpost cannot reach its main side')
  await expect(again.getByRole('alert')).toContainText('good for one use within a minute: it was used already, or it expired')
  expect(again.url()).not.toContain('outpost-code')
  expect(errors).toEqual([])
  await first.close()
  await again.close()
})
