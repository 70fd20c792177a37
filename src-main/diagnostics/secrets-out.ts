// Cutting tokens out of text that leaves the main side's memory (a problem
// report) or stays in it for later (the recent log's lines): every form a
// token could take in text is replaced by a marker.

/** The forms a token could take in text: as is, percent-encoded, base64 and base64url, hex. */
export function secretTexts(secret: string): string[] {
  // Too short to be a token, and replacing it would cut ordinary words out of the report.
  if (secret.length < 8) return []
  const bytes = Buffer.from(secret, 'utf8')
  const forms = new Set([secret, encodeURIComponent(secret), bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')])
  // Inside a longer base64 text a secret's own characters depend on where it starts (and what
  // follows it): the part that is its alone, for each of the three offsets.
  for (const encoding of ['base64', 'base64url'] as const) {
    for (const offset of [0, 1, 2]) {
      const text = Buffer.concat([Buffer.alloc(offset), bytes]).toString(encoding)
      forms.add(text.slice(offset === 0 ? 0 : 4, Math.floor((offset + bytes.length) / 3) * 4))
    }
  }
  return [...forms].filter((f) => f.length >= 6)
}

/** The text with every form of every secret replaced by a marker. */
export function withoutSecrets(text: string, secrets: string[]): string {
  let out = text
  for (const secret of secrets) {
    if (!secret) continue
    for (const form of secretTexts(secret).sort((a, b) => b.length - a.length)) out = out.split(form).join('[token removed]')
  }
  return out
}
