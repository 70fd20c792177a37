// Placeholder: this resource's routes are being written.
import type { Resource } from '../../app.ts'

export const labelsResource: Resource = {}
