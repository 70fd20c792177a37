// How the Files screen is shown (kept for the session).
import type { FileFilter } from './items.ts'

class FilesView {
  mode = $state<'grid' | 'list'>('grid')
  filter = $state<FileFilter>('all')
  query = $state('')
}

export const filesView = new FilesView()
