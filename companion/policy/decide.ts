import type { Risk } from '../../shared/tools/define-tool';
import type { AuthorizationRequest, PlannedAction } from '../types';
import { isAllowListed } from './command-guard';
import { globSet } from './glob-set';
import { deniedBy, DENY_OPTIONS as GUARD_DENY_OPTIONS, RESERVED_REASON } from './path-guard';
import { asDecided, rereadChangedStartFiles } from './runs-code';
import type { Mode, Policy } from './schema';

export type Decision = 'auto' | 'confirm' | { deny: string };

/** What the policy says of one action of a call, judged alone except for the allow-list rule below. */
export interface ActionDecision {
  action: PlannedAction;
  decision: Decision;
}

const CHANGES_FILES: ReadonlySet<Risk> = new Set(['write', 'delete']);

/**
 * Whether an action may change files an allow-listed command runs: a write or a removal, and a tool of the person's
 * MCP server that is not a read (exec with no command chatbridge sees: it runs code of its own, a filesystem server's
 * write_file writes files the journal never shows).
 */
export function mayChangeFiles(action: Pick<PlannedAction, 'risk' | 'command'>): boolean {
  return CHANGES_FILES.has(action.risk) || (action.risk === 'exec' && action.command === undefined);
}

/**
 * What the policy says about one call (DESIGN §5.3). Pure. Every action is decided on its own class, and the
 * call's decision is the strictest of them: any deny refuses the whole call, any confirm asks once for all, auto
 * only when every action is auto. A call with nothing to decide is auto.
 */
export function decide(request: AuthorizationRequest, policy: Policy, site: string): Decision {
  return strictest(decideActions(request, policy, site));
}

export function decideActions(request: AuthorizationRequest, policy: Policy, site: string): ActionDecision[] {
  // A command is only as safe as what it runs: a call that also writes or deletes files can rewrite the script,
  // the config or the binary an allow-listed command uses, so the allow-list does not apply inside it.
  const changesFiles = request.afterChanges === true || request.actions.some(mayChangeFiles);
  const named = request.actions.length > 1;
  // a source line or git include added since the last decision names its file from this one on
  rereadChangedStartFiles();
  return request.actions.map((planned) => {
    // a write to a file that runs code (a shell's start-up file, a git hook, an editor's tasks) is decided as exec
    const action = asDecided(planned, policy);
    const decision = decideAction(action, policy, site, changesFiles);
    return { action, decision: typeof decision === 'object' && named ? { deny: `${decision.deny} (${action.label})` } : decision };
  });
}

export function strictest(decisions: readonly ActionDecision[]): Decision {
  let result: Decision = 'auto';
  for (const { decision } of decisions) {
    if (typeof decision === 'object') return decision;
    if (decision === 'confirm') result = 'confirm';
  }
  return result;
}

/**
 * One action. Order: deny globs on any path (and on a command's cwd) → the risk's mode (the site's override
 * first) → for exec under `confirm`, an allow-listed command (global plus the site's list) is `auto` — unless
 * the same call changes files. Deny always wins; an allow-list never lifts a `deny` mode.
 */
function decideAction(action: PlannedAction, policy: Policy, site: string, callChangesFiles: boolean): Decision {
  const denied = firstDeniedPath(action.paths, policy.deny);
  if (denied) return { deny: `${denied.path} matches the deny glob "${denied.glob}"` };
  // the guard's own reading too (root-relative globs, the companion's data), so both places refuse the same paths
  for (const path of [...action.paths, ...(action.command ? [action.command.cwd] : [])]) {
    const why = deniedBy(path, policy);
    if (why !== undefined) return { deny: why === RESERVED_REASON ? `${path} is inside ${why}` : `${path} matches the deny glob "${why}"` };
  }
  if (action.command) {
    const cwdDenied = firstDeniedPath([action.command.cwd], policy.deny);
    if (cwdDenied) return { deny: `working directory ${cwdDenied.path} matches the deny glob "${cwdDenied.glob}"` };
  }
  const override = siteOverride(policy, site);
  const siteMode = override?.modes?.[action.risk];
  // an action with its own mode (a tool of the person's MCP server, set in that server's policy) keeps it; the
  // site's override of its class can only make it stricter, and a class the person set to deny stays denied
  const classDeny: Mode | undefined = policy.modes[action.risk] === 'deny' ? 'deny' : undefined;
  const mode: Mode =
    action.mode !== undefined ? stricterMode(stricterMode(action.mode, siteMode), classDeny) : (siteMode ?? policy.modes[action.risk]);
  if (mode === 'deny') {
    if (action.mode === 'deny') return { deny: `${action.label} is set to deny in its server's policy` };
    return { deny: `the policy mode for ${action.risk} is deny${siteMode ? ` on site ${site}` : ''}` };
  }
  if (mode === 'auto') return 'auto';
  if (action.risk === 'exec' && action.command && !callChangesFiles) {
    const allow = [...policy.allowCommands, ...(override?.allowCommands ?? [])];
    if (isAllowListed(action.command, allow)) return 'auto';
  }
  return 'confirm';
}

const MODE_ORDER: readonly Mode[] = ['auto', 'confirm', 'deny'];

export function stricterMode(a: Mode, b: Mode | undefined): Mode {
  return b !== undefined && MODE_ORDER.indexOf(b) > MODE_ORDER.indexOf(a) ? b : a;
}

/** The highest risk class among a call's actions: what its approval is filed under. */
export function highestRisk(actions: readonly Pick<PlannedAction, 'risk'>[]): Risk {
  return actions.reduce<Risk>((top, { risk }) => (RISK_ORDER.indexOf(risk) > RISK_ORDER.indexOf(top) ? risk : top), 'read');
}

const RISK_ORDER: readonly Risk[] = ['read', 'write', 'delete', 'exec'];

export function siteOverride(policy: Policy, site: string): Policy['sites'][string] | undefined {
  return Object.prototype.hasOwnProperty.call(policy.sites, site) ? policy.sites[site] : undefined;
}

/** The approval wait for a site: its override, else the policy's. */
export function approvalWaitFor(policy: Policy, site: string): number {
  return siteOverride(policy, site)?.approvalWaitMs ?? policy.approvalWaitMs;
}

/** the path guard's options (any case), with Windows paths compared with forward slashes */
const DENY_OPTIONS = { ...GUARD_DENY_OPTIONS, windows: false } as const;

export function firstDeniedPath(paths: readonly string[], globs: readonly string[]): { path: string; glob: string } | null {
  // dot: deny globs name dotfiles (.env, .git)
  const set = globSet(globs, DENY_OPTIONS);
  for (const raw of paths) {
    const path = raw.replace(/\\/g, '/');
    // `**/.ssh/**` should also refuse the directory itself, not only what is inside it
    const asFile = set.firstMatch(path);
    const asDir = set.firstMatch(path + '/');
    const index = asFile < 0 ? asDir : asDir < 0 ? asFile : Math.min(asFile, asDir);
    if (index >= 0) return { path: raw, glob: globs[index] as string };
  }
  return null;
}
