// Types of icons.mjs (plain JS: run with node, no build step).
export const ICON_SIZES: number[]
export function renderPng(svg: Buffer | string, size: number): Buffer
export function writeIcons(dir?: string): string[]
