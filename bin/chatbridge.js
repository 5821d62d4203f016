#!/usr/bin/env node
// Runs companion/main.ts in this process through tsx's loader, so the CLI needs no build step and no second process:
// the companion is this process, and the signals that stop it reach it directly. The package's own tsconfig is
// used wherever the command is typed (a project's own would change how the companion's sources are read).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
register({ tsconfig: existsSync(tsconfig) ? tsconfig : false });
await import('../companion/main.ts');
