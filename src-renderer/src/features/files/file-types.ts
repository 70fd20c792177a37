// Which icon a file gets, from its content type (or, failing that, its name).
import type { IconName } from '../ui/icons.ts'

const BY_EXTENSION: Record<string, IconName> = {
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  avif: 'image',
  svg: 'image',
  bmp: 'image',
  heic: 'image',
  pdf: 'pdf',
  zip: 'archiveFile',
  gz: 'archiveFile',
  tgz: 'archiveFile',
  tar: 'archiveFile',
  '7z': 'archiveFile',
  rar: 'archiveFile',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  mkv: 'video',
  avi: 'video',
  mp3: 'audio',
  wav: 'audio',
  ogg: 'audio',
  flac: 'audio',
  m4a: 'audio',
  csv: 'sheet',
  xls: 'sheet',
  xlsx: 'sheet',
  ods: 'sheet',
  numbers: 'sheet',
  json: 'code',
  js: 'code',
  ts: 'code',
  html: 'code',
  css: 'code',
  xml: 'code',
  yml: 'code',
  yaml: 'code',
  sh: 'code',
  py: 'code',
  md: 'doc',
  txt: 'doc',
  doc: 'doc',
  docx: 'doc',
  rtf: 'doc',
  odt: 'doc',
  pages: 'doc',
}

export function extensionOf(name: string): string {
  const match = /\.([a-z0-9]+)$/i.exec(name)
  return match ? match[1].toLowerCase() : ''
}

export function iconOfType(contentType: string | null | undefined, name = ''): IconName {
  const type = (contentType ?? '').toLowerCase()
  if (type.startsWith('image/')) return 'image'
  if (type === 'application/pdf') return 'pdf'
  if (type.startsWith('video/')) return 'video'
  if (type.startsWith('audio/')) return 'audio'
  if (/zip|tar|gzip|compressed|x-7z|rar/.test(type)) return 'archiveFile'
  if (/csv|spreadsheet|excel/.test(type)) return 'sheet'
  if (/json|javascript|typescript|xml|html|css/.test(type)) return 'code'
  if (type.startsWith('text/') || /word|document|rtf/.test(type)) return 'doc'
  return BY_EXTENSION[extensionOf(name)] ?? 'file'
}

export function isImage(contentType: string | null | undefined, name = ''): boolean {
  return (contentType ?? '').toLowerCase().startsWith('image/') || BY_EXTENSION[extensionOf(name)] === 'image'
}

/** A short, human name of the kind of file: "PNG image", "PDF", "ZIP archive". */
export function kindLabel(contentType: string | null | undefined, name = ''): string {
  const ext = extensionOf(name).toUpperCase()
  const icon = iconOfType(contentType, name)
  switch (icon) {
    case 'image':
      return `${ext || 'Image'} image`
    case 'pdf':
      return 'PDF document'
    case 'video':
      return `${ext || 'Video'} video`
    case 'audio':
      return `${ext || 'Audio'} audio`
    case 'archiveFile':
      return `${ext || 'Compressed'} archive`
    case 'sheet':
      return `${ext || 'Spreadsheet'} spreadsheet`
    case 'code':
      return `${ext || 'Code'} file`
    case 'doc':
      return `${ext || 'Text'} document`
    default:
      return ext ? `${ext} file` : 'File'
  }
}
