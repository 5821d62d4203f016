import type { Risk } from '../../shared/tools/define-tool';
import { stricterMode } from '../policy/decide';
import type { Mode } from '../policy/schema';
import { configuredMode, type ServerPolicy } from './config';
import { externalToolName } from './names';

/**
 * How one tool of the person's MCP server is decided (issue 11 §4). Pure.
 *
 * Its class is `exec` — it runs code chatbridge cannot see — unless the server's `trustAnnotations` is on and the
 * tool declares `readOnlyHint: true`; then it is a `read`, like fs.read. Its mode is the tool's own entry in the
 * server's `policy.tools`, else, for an exec-class tool, the server's `policy.default` (confirm when unset); a
 * trusted read-only tool without an entry is left to the `read` mode (auto by default), exactly like a built-in
 * read — unless the server's `default` is `deny`, which holds for it too. A site's override of the class can then only make it stricter (policy/decide.ts).
 *
 * A tool's entry is keyed by its own name, or by `<server>.<tool>` — the name it has in every tool list, prompt and
 * block, so the one people write. A key may name two tools (`s.t` is the tool `t` as people write it, and also the
 * own name of a tool `s.t` a server may list beside it), and two keys one tool (`t` and `s.t`): each key holds for
 * every tool it names, and of two modes for one tool the stricter holds, so neither a second key nor a tool
 * named like another's key takes a person's deny away.
 */
export interface ExternalToolRule {
  risk: Risk;
  /** undefined: the policy's mode for `risk` decides, as for a built-in */
  mode?: Mode;
}

export function externalToolRule(policy: ServerPolicy, server: string, tool: string, annotations: { readOnlyHint?: boolean } | undefined): ExternalToolRule {
  const rule = exactRule(policy, server, tool, annotations);
  // a deny or confirm keyed by the tool's name in another case or form ("Delete_Entities", "Memory.delete_entities",
  // a fullwidth letter, a zero-width space pasted with it) is the person's word for that tool: it holds where stricter
  const folded = foldedStricterMode(policy, server, tool);
  return folded === undefined ? rule : { risk: rule.risk, mode: rule.mode === undefined ? folded : stricterMode(rule.mode, folded) };
}

function exactRule(policy: ServerPolicy, server: string, tool: string, annotations: { readOnlyHint?: boolean } | undefined): ExternalToolRule {
  const risk: Risk = policy.trustAnnotations === true && annotations?.readOnlyHint === true ? 'read' : 'exec';
  const own = configuredMode(policy, tool);
  const prefixed = configuredMode(policy, externalToolName(server, tool));
  const mode = own === undefined ? prefixed : stricterMode(own, prefixed);
  if (mode !== undefined) return { risk, mode };
  // `default: "deny"` is the person's word for every tool without an entry: a server's annotation does not take it away
  if (risk === 'read') return policy.default === 'deny' ? { risk, mode: 'deny' } : { risk };
  return { risk, mode: policy.default ?? 'confirm' };
}

/** A tool's name as compared loosely: its compatibility form (NFKC), in small letters, without invisible characters. */
export function foldedToolName(name: string): string {
  return name.normalize('NFKC').replace(/[\p{Cf}\s]/gu, '').toLowerCase();
}

/**
 * The strictest deny or confirm among the keys that name the tool only when compared loosely (foldedToolName): a key
 * written as the tool is listed is the exact rule's. An auto so keyed is not taken: only the person's exact word
 * lifts a tool above its default.
 */
function foldedStricterMode(policy: ServerPolicy, server: string, tool: string): Mode | undefined {
  const names = new Set([foldedToolName(tool), foldedToolName(externalToolName(server, tool))]);
  let mode: Mode | undefined;
  for (const [key, keyMode] of Object.entries(policy.tools ?? {})) {
    if (keyMode === 'auto' || key === tool || key === externalToolName(server, tool) || !names.has(foldedToolName(key))) continue;
    mode = mode === undefined ? keyMode : stricterMode(mode, keyMode);
  }
  return mode;
}

/**
 * The keys of the server's `policy.tools` that name none of its tools (a misspelt name, a tool it no longer has):
 * their modes hold for nothing, and a `deny` among them would otherwise leave the tool it meant to the default.
 * `loose`: the keys that name a tool only in another case or form, each with that tool's name (foldedToolName).
 */
/** `names`: every tool the server lists, by its own name */
export function unmatchedPolicyKeys(policy: ServerPolicy, server: string, names: ReadonlySet<string>): { none: string[]; loose: Array<{ key: string; tool: string }> } {
  const matched = new Set<string>();
  const folded = new Map<string, string>();
  for (const tool of names) {
    matched.add(tool);
    matched.add(externalToolName(server, tool));
    folded.set(foldedToolName(tool), tool);
    folded.set(foldedToolName(externalToolName(server, tool)), tool);
  }
  const none: string[] = [];
  const loose: Array<{ key: string; tool: string }> = [];
  for (const key of Object.keys(policy.tools ?? {})) {
    if (matched.has(key)) continue;
    const tool = folded.get(foldedToolName(key));
    if (tool === undefined) none.push(key);
    else loose.push({ key, tool });
  }
  return { none, loose };
}
