/** `text` as a regular expression that matches exactly it (no `u` or `v` flag: those refuse some of these escapes). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
