// Packaging with electron-builder (`npm run dist`): Windows NSIS, macOS dmg +
// zip, Linux AppImage + deb. It downloads Electron, so it runs on a connected
// machine only; scripts/electron-builder.test.ts checks this file against
// electron-builder's own schema here.
import type { Configuration } from 'electron-builder'

/**
 * Where the installed app looks for updates (electron-updater's generic provider: a folder served
 * over HTTPS with latest.yml, latest-mac.yml or latest-linux.yml and the installers beside them).
 * OUTPOST_UPDATE_URL at packaging time sets it; `${os}` keeps each OS's files in its own folder.
 */
export const UPDATE_URL = process.env.OUTPOST_UPDATE_URL ?? 'https://updates.outpost.invalid/${os}'

const config: Configuration = {
  appId: 'dev.outpost.desktop',
  productName: 'Outpost',
  copyright: 'Copyright © Outpost contributors',
  directories: { output: 'dist', buildResources: 'resources' },
  // The three builds of electron-vite and package.json; the main side's
  // runtime modules (undici, typebox, keytar) come from `dependencies`.
  files: [
    'out/**/*',
    'package.json',
    '!**/*.map',
    // The local service is a development tool, not part of the app: its
    // native module is neither packed nor rebuilt for Electron.
    '!node_modules/better-sqlite3/**',
  ],
  asar: true,
  // Native modules (keytar) are rebuilt for Electron's ABI before packing.
  npmRebuild: true,
  buildDependenciesFromSource: false,
  afterPack: './scripts/after-pack.mjs',
  // outpost://<workspace>/epic/<id> and /doc/<id> (macOS Info.plist, the Linux .desktop file; Windows
  // registers at first run with app.setAsDefaultProtocolClient).
  protocols: [{ name: 'Outpost link', schemes: ['outpost'] }],
  // Written into the app as app-update.yml, and beside the installers as latest*.yml: what
  // electron-updater reads (see src-main/updates/). Uploading is the release's own step.
  publish: [{ provider: 'generic', url: UPDATE_URL }],

  win: {
    target: [{ target: 'nsis', arch: ['x64', 'arm64'] }],
    icon: 'resources/icon.ico',
  },
  nsis: {
    oneClick: false,
    perMachine: false,
    allowToChangeInstallationDirectory: true,
    createDesktopShortcut: true,
  },

  mac: {
    target: [
      { target: 'dmg', arch: ['x64', 'arm64'] },
      { target: 'zip', arch: ['x64', 'arm64'] },
    ],
    icon: 'resources/icon.icns',
    category: 'public.app-category.productivity',
    hardenedRuntime: true,
  },

  linux: {
    target: [
      { target: 'AppImage', arch: ['x64'] },
      { target: 'deb', arch: ['x64'] },
    ],
    // A folder of NxN.png files, one per size.
    icon: 'resources/icons',
    category: 'Office',
    synopsis: 'Offline-first desktop client for your work tracker',
    maintainer: 'Outpost contributors',
  },
  deb: {
    // keytar talks to the Secret Service through libsecret.
    depends: ['libsecret-1-0', 'libgtk-3-0', 'libnotify4', 'libnss3', 'libxss1', 'libxtst6', 'xdg-utils', 'libatspi2.0-0', 'libuuid1'],
  },
}

export default config
