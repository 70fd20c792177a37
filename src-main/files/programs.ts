// File types the OS would run rather than open. Anyone in the workspace can
// upload a file, so "open" must never mean "run": Outpost opens documents,
// images and the like with their apps, and leaves programs and scripts to the
// user to start themselves, on purpose.
import { extname } from 'node:path'

const PROGRAMS = new Set([
  // Windows
  '.exe', '.com', '.scr', '.pif', '.bat', '.cmd', '.msi', '.msp', '.msc', '.cpl', '.hta', '.lnk', '.url', '.reg', '.inf',
  '.ps1', '.psm1', '.vbs', '.vbe', '.js', '.jse', '.wsf', '.wsh', '.appx', '.msix', '.appref-ms', '.application', '.library-ms', '.settingcontent-ms',
  // macOS
  '.app', '.command', '.tool', '.terminal', '.workflow', '.pkg', '.mpkg', '.scpt', '.scptd', '.applescript', '.fileloc', '.webloc', '.inetloc',
  // Linux and any Unix
  '.desktop', '.sh', '.bash', '.zsh', '.csh', '.ksh', '.run', '.bin', '.appimage', '.deb', '.rpm', '.flatpakref', '.snap',
  // Runtimes that start programs on a double click
  '.jar', '.jnlp', '.py', '.pyw', '.pl', '.rb', '.php',
])

/** Whether opening a file of this name would run it. */
export function isProgram(name: string): boolean {
  return PROGRAMS.has(extname(name).toLowerCase())
}
