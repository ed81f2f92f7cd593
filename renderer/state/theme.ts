/** Theme resolution: `system` follows the OS preference. Pure; unit-tested. */
import type { Theme } from '../../app/common/ipc/contract';

/** The concrete theme to paint for a setting and the OS preference. */
export function resolveTheme(theme: Theme, prefersDark: boolean): 'light' | 'dark' {
  return theme === 'system' ? (prefersDark ? 'dark' : 'light') : theme;
}
