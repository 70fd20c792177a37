// What "Open" hands to the OS's app, by the file's extension: documents and
// media only. Anyone in the workspace can upload or rename a file, and the OS
// runs what it would rather open (Windows alone has dozens of such types:
// .chm, .pyz, .xll, .theme, .diagcab, .msu, .iso, .vhdx, .rdp, .wsb,
// .appinstaller, .scf, .website, and more each year), so a list of what is
// refused can never be complete: this is the list of what is let through, and
// anything else is shown in its folder for the person to decide.
//
// On Windows and macOS a downloaded file also carries the OS's "came from the
// internet" mark (internet-mark.ts), so an app that honours it (Office's
// Protected View and macro blocking, SmartScreen, Gatekeeper) steps in too.
import { extname } from 'node:path'

const DOCUMENTS = [
  // Adobe Reader runs a PDF's JavaScript in its sandbox, and opens a file with the internet mark in
  // Protected Mode; every browser opens PDFs too.
  '.pdf',
  // Office Open XML without macros: a macro in one of these is refused by Office when the file is opened.
  '.docx',
  '.xlsx',
  '.pptx',
  '.ppsx',
  // The older binary formats can carry VBA macros; let through because Office opens a file with the internet
  // mark in Protected View and blocks its macros, and LibreOffice runs no unsigned macro at its default
  // security level. Their macro-enabled siblings are not (below).
  '.doc',
  '.xls',
  '.ppt',
  // OpenDocument, Rich Text: LibreOffice Basic macros are refused the same way by default.
  '.odt',
  '.ods',
  '.odp',
  '.odg',
  '.rtf',
  // Apple's iWork documents have no macro language.
  '.pages',
  '.numbers',
  '.key',
  // Plain text the OS opens in an editor or viewer. CSV opens in a spreadsheet, whose formulas and DDE links
  // Excel asks about before it runs anything.
  '.txt',
  '.text',
  '.md',
  '.markdown',
  '.csv',
  '.tsv',
  '.log',
  '.json',
  '.yaml',
  '.yml',
]

// Left out on purpose, so shown in their folder:
// - .docm .xlsm .pptm .ppsm .dotm .xltm .potm .xlsb .xlam .ppam .dot .xlt: macro-enabled documents, templates
//   and add-ins (a macro is what they are for; .xlsb and the old templates hold macros under a name that does not say so);
// - .html .htm .xhtml .mht .svg .xml .xsl: their usual app is a browser or Internet Explorer's engine, which runs
//   their script (an XML file can carry a stylesheet with script) with the file's own folder as its origin;
// - .eps .ps: PostScript is a programming language, run by Ghostscript or Preview;
// - archives and disk images (.zip .7z .rar .tar .gz .dmg .iso .img .vhd .vhdx): opening one unpacks or
//   mounts it, and what comes out (an installer, an autorun) is one click from running;
// - playlists (.m3u .pls .asx .wpl): they point a player at other addresses and files; Windows Media
//   (.wma .wmv .asf) can carry script commands that open web pages as it plays.
const IMAGES = ['.png', '.jpg', '.jpeg', '.gif', '.webp', '.avif', '.bmp', '.tif', '.tiff', '.heic', '.heif']
const AUDIO = ['.mp3', '.m4a', '.aac', '.wav', '.flac', '.ogg', '.oga', '.opus']
const VIDEO = ['.mp4', '.m4v', '.mov', '.webm', '.mkv', '.avi', '.mpg', '.mpeg']

const OPENED_DIRECTLY = new Set([...DOCUMENTS, ...IMAGES, ...AUDIO, ...VIDEO])

/** Whether Outpost hands a file of this name to the OS's app for it (else it is shown in its folder). */
export function opensDirectly(name: string): boolean {
  return OPENED_DIRECTLY.has(extname(name).toLowerCase())
}

/** What the person is told when a file is shown in its folder rather than opened. */
export function shownInFolderInstead(name: string): string {
  return `Outpost opens documents and media directly; ${name} could run as a program, so it is shown in its folder instead.`
}

/** The same, where there is no file manager to show it in. */
export function notOpenedDirectly(name: string): string {
  return `Outpost opens documents and media directly; ${name} could run as a program, so Outpost does not open it.`
}
