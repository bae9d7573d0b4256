// Leak checks: counts of native objects that own libvirt references, for tests and diagnostics.
import { addon } from './native.js';
import type { HandleCounts } from './native.js';

/** How many libvirt handles the binding holds right now (domains wrapped or in flight, open connections). */
export function handleCounts(): HandleCounts {
  return addon.handleCounts();
}
