// What a screen reader hears of the three screens people spend their time in,
// reviewed as heard (ARIA snapshots of the main landmark, a subset of it in
// order): the epic list, an opened epic and a doc in the reader. Each page has
// one h1 and an outline that goes one level at a time (a doc's own headings
// under its title, an epic's description under "Description"); a button says
// its value once ("Epic state: In Review", not "In Review In Review"); an
// epic in the list is heard name first, every team named (the row's name is
// its text, so voice control finds it by what it shows). Times,
// dates and counts that change with the clock are patterns.
import type { Page } from '@playwright/test'
import { epicRow, expect, goTo, signIn, test, waitForBootstrap, type LocalService, type OutpostApp } from '../fixtures/outpost.ts'

/** "just now", "13 min ago", "4 h ago", "2 days ago", "Nov 15". */
const WHEN = String.raw`(just now|\d+ (min|h|days?) ago|[A-Z][a-z]{2} \d{1,2}(, \d{4})?)`

async function signedIn(outpost: OutpostApp, service: LocalService): Promise<Page> {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  return page
}

test('the epic list reads as its title, its search and filters, then each epic: name, state, number, teams, stories, owners, when', async ({
  service,
  outpost,
}) => {
  const page = await signedIn(outpost, service)
  await expect(page.getByRole('main')).toMatchAriaSnapshot(`
    - main "Content":
      - region "Epics":
        - heading "Epics" [level=1]
        - text: /^\\d+ of \\d+ epics$/
        - searchbox "Search epics"
        - button "New epic"
        - toolbar "Filter and sort epics":
          - button "State"
          - button "Owner"
          - button "Team"
          - button "Objective"
          - radiogroup "Archived epics":
            - radio "Active" [checked]
            - radio "Archived"
            - radio "All"
          - combobox "Sort by":
            - option "Last updated" [selected]
          - button "Descending; switch to ascending"
        - listbox /^Epics, \\d+ shown$/:
          - group:
            - option /^Search that understands typos In Review 50 Desktop and Web 3 of 5 stories done, 0 in progress Alan Kay ${WHEN}$/
  `)
})

test('an opened epic reads as one h1 (its name), its description under "Description", its sections, its progress once, then each property once, people and teams one by one', async ({
  service,
  outpost,
}) => {
  const page = await signedIn(outpost, service)
  await epicRow(page, 'Search that understands typos').click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue('Search that understands typos')
  await expect(page.getByRole('main')).toMatchAriaSnapshot(`
    - main "Content":
      - article "Search that understands typos":
        - button "Epics"
        - text: "#50"
        - button "Copy link"
        - button "Archive"
        - button "Delete"
        - heading "Search that understands typos" [level=1]
        - textbox "Epic name": Search that understands typos
        - region "Description":
          - heading "Description" [level=2]
          - heading "Why" [level=3]
          - paragraph: /^Searching "retension" finds nothing\\./
          - heading "Scope" [level=3]
          - list:
            - listitem: Instrument the flow and set a baseline metric first
          - heading "Out of scope" [level=3]
          - list:
            - listitem: Bulk editing
          - button "Edit"
        - region "Stories 5":
          - heading "Stories 5" [level=2]
          - img "3 of 5 stories done, 0 in progress, 2 not started; 10 of 11 points done"
          - list:
            - listitem:
              - text: Done
              - link "Sketch the screens for search that understands typos"
              - text: feature 1 pt
              - img "Barbara Liskov"
        - region "Health":
          - heading "Health" [level=2]
          - button "Update health"
          - text: On Track Max Member
          - time: /^${WHEN}$/
          - paragraph: All tasks estimated and staffed.
          - button /^History \\(\\d+\\)$/
        - region "Related docs":
          - heading "Related docs" [level=2]
          - button "Link doc"
          - paragraph: No docs linked to this epic.
        - region /^Comments \\d+$/:
          - heading /^Comments \\d+$/ [level=2]
          - list:
            - listitem:
              - article "Comment by Katherine Johnson":
                - text: Katherine Johnson
                - time: /^${WHEN}$/
                - button "Reply"
                - paragraph: "@grace can you take a look at the rollout plan?"
          - 'tablist "New comment: write or preview"':
            - tab "Write" [selected]
            - tab "Preview"
          - tabpanel "Write":
            - textbox "New comment"
          - button "Comment" [disabled]
        - complementary "Epic properties":
          - term: State
          - definition:
            - 'button "Epic state: In Review"'
          - term: Owners
          - definition:
            - 'button "Owners: Alan Kay"'
          - term: Requester
          - definition:
            - 'button "Requester: Ada Admin"'
          - term: Followers
          - definition:
            - 'button /^Followers: Alan Kay ?, Grace Hopper$/'
          - term: Teams
          - definition:
            - 'button /^Teams: Desktop ?, Web$/'
          - term: Objectives
          - definition:
            - 'button "Objectives: Launch the desktop beta"'
          - term: Labels
          - definition:
            - 'button "Labels: None"'
          - term: Planned start
          - definition:
            - 'button "Planned start: Set a date"'
          - term: Deadline
          - definition:
            - 'button "Deadline: Set a date"'
          - paragraph:
            - text: Created
            - time: /^${WHEN}$/
          - paragraph:
            - text: Updated
            - time: /^${WHEN}$/
          - paragraph:
            - text: On the service
            - link "Open"
  `)
})

test('a doc reads as one h1 (its title) with its own headings under it, the list of docs beside it under an h2', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await goTo(page, 'Docs')
  await page.getByRole('option').filter({ hasText: 'Writing style guide' }).click()
  await expect(page.getByRole('main')).toMatchAriaSnapshot(`
    - main "Content":
      - complementary "Docs":
        - heading "Docs" [level=2]
        - text: /^\\d+ docs$/
        - button "New doc"
        - searchbox "Search docs"
        - listbox /^Docs, \\d+ shown$/:
          - group:
            - 'option /^Writing style guide Write for a busy reader: short sentences/'
      - article "Writing style guide":
        - button "Copy link"
        - button "Edit"
        - button "Delete doc"
        - heading "Writing style guide" [level=1]
        - paragraph: /^Grace Hopper Updated ${WHEN}$/
        - group "Related epics":
          - button "Link to an epic"
        - heading "Writing style" [level=2]
        - paragraph:
          - text: Write for a
          - emphasis: busy
          - text: "reader: short sentences, plain words, one idea per paragraph."
        - heading "Names" [level=3]
        - list:
          - listitem:
            - text: "Say what a thing is in the user's words:"
            - code: outbox
          - listitem:
            - text: Avoid
            - code: manager
        - heading "Error messages" [level=3]
        - paragraph: "A good error message says what happened and what to do next:"
        - blockquote:
          - paragraph: "The token is read-only: it cannot change anything. Use a read-write token."
  `)
  // One page, one h1: the doc's title, not the list's.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(['Writing style guide'])
})
