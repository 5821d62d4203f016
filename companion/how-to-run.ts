/**
 * How the companion's messages tell a person to run a command. A clone puts no `chatbridge` on the PATH (a shell
 * answers 'command not found'), and `npx chatbridge` outside the chatbridge folder looks for a package of that name
 * in the registry: starting is `npm start`, the other commands `npx chatbridge <command>`, both in that folder —
 * as the popup and the side panel say it.
 */
export const START_HOW = '`npm start` in the chatbridge folder';

/** `npx chatbridge status`, said with where to run it */
export function commandHow(command: string): string {
  return `\`npx chatbridge ${command}\` in the chatbridge folder`;
}
