// Types of after-pack.mjs (plain JS: electron-builder imports the hook itself).
import type { FuseV1Config } from '@electron/fuses'

export interface PackContext {
  appOutDir: string
  electronPlatformName: string
  packager: { appInfo: { productFilename: string }; executableName: string }
}

export function fusesFor(platform: string): FuseV1Config
export function executablePath(context: PackContext): string
export default function afterPack(context: PackContext): Promise<void>
