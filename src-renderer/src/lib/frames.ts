// Waiting for the browser to show what is in the document.

/**
 * Resolves once the browser has had a frame to paint what the document holds
 * now: after the next animation frame, in the task that follows it. A hidden
 * window may get no frames (and Node has none): then after `atMostMs`.
 */
export function afterNextFrame(atMostMs = 100): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, atMostMs)
    if (typeof requestAnimationFrame !== 'function') return
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer)
        resolve()
      }),
    )
  })
}
