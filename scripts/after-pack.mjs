// electron-builder's afterPack hook: flips Electron's fuses in the packaged
// binary, before it is signed and put in an installer. Fuses are switches
// compiled into Electron that turn off what Outpost never uses and an
// attacker could: running the binary as plain Node, NODE_OPTIONS, the
// inspector flags, and loading app code from anywhere but the app's asar.
import { join } from 'node:path'
import { FuseV1Options, FuseVersion, flipFuses } from '@electron/fuses'

/** The fuses of a packaged Outpost on `platform` (electron-builder's electronPlatformName). */
export function fusesFor(platform) {
  return {
    version: FuseVersion.V1,
    // arm64 macOS refuses to run a binary whose ad-hoc signature no longer matches; signing later replaces it.
    resetAdHocDarwinSignature: platform === 'darwin' || platform === 'mas',
    [FuseV1Options.RunAsNode]: false,
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    [FuseV1Options.EnableCookieEncryption]: true,
    [FuseV1Options.OnlyLoadAppFromAsar]: true,
    // electron-builder records the asar's hash for macOS (Info.plist) and Windows (a resource);
    // Electron does not check it on Linux, where the fuse is left alone.
    ...(platform === 'linux' ? {} : { [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true }),
    // The app is served from outpost://, never file://.
    [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
  }
}

/** The Electron binary inside a packed app folder, as electron-builder names it. */
export function executablePath(context) {
  const { appOutDir, electronPlatformName, packager } = context
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return join(appOutDir, `${packager.appInfo.productFilename}.app`)
  if (electronPlatformName === 'win32') return join(appOutDir, `${packager.appInfo.productFilename}.exe`)
  return join(appOutDir, packager.executableName)
}

export default async function afterPack(context) {
  await flipFuses(executablePath(context), fusesFor(context.electronPlatformName))
}
