// Who may call the main side: the main frame of our own window, showing our
// own app. A message from another webContents, from a subframe, or from a page
// that somehow got another URL is refused (Electron's security checklist,
// "validate the sender of all IPC messages").

/** The parts of an IpcMainEvent / IpcMainInvokeEvent that the check reads. */
export interface SenderEvent {
  sender: { id: number }
  senderFrame: { url: string; parent: unknown } | null
}

export interface TrustedWindow {
  /** Our window's webContents id (undefined before the window exists or after it closed). */
  webContentsId: () => number | undefined
  /** Where the app is served from: `outpost://app`, and the dev server in a development build. */
  origins: readonly string[]
}

/** `scheme://host[:port]`, also for custom schemes (whose URL.origin is "null"). */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    return parsed.host ? `${parsed.protocol}//${parsed.host}` : undefined
  } catch {
    return undefined
  }
}

/** Why the sender is refused, or undefined when it is ours. */
export function senderRefusal(event: SenderEvent, trusted: TrustedWindow): string | undefined {
  const ours = trusted.webContentsId()
  if (ours === undefined || event.sender.id !== ours) return 'the message does not come from the Outpost window'
  const frame = event.senderFrame
  // Null when the frame navigated away or was destroyed since sending.
  if (!frame) return 'the sending frame is gone'
  if (frame.parent !== null) return 'the message comes from a subframe, not the main frame'
  const origin = originOf(frame.url)
  if (!origin || !trusted.origins.includes(origin)) return `the sending page (${origin ?? 'no origin'}) is not the Outpost app`
  return undefined
}
