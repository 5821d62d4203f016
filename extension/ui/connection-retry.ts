import type { ConnectionState } from '../companion/socket';

/**
 * Whether `next` is only the socket trying again while the companion is away: it goes from disconnected to
 * connecting and back on each try (1 to 30 s apart, for as long as the companion is away). Shown, each try made the
 * state's words, its live region and its tip come and go; a page keeps showing disconnected until something else comes.
 */
export function isRetry(shown: ConnectionState | undefined, next: ConnectionState): boolean {
  return shown === 'disconnected' && next === 'connecting';
}
