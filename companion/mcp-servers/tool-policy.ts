import type { Risk } from '../../shared/tools/define-tool';
import type { Mode } from '../policy/schema';
import { configuredMode, type ServerPolicy } from './config';

/**
 * How one tool of the person's MCP server is decided (issue 11 §4). Pure.
 *
 * Its class is `exec` — it runs code chatbridge cannot see — unless the server's `trustAnnotations` is on and the
 * tool declares `readOnlyHint: true`; then it is a `read`, like fs.read. Its mode is the tool's own entry in the
 * server's `policy.tools`, else, for an exec-class tool, the server's `policy.default` (confirm when unset); a
 * trusted read-only tool without an entry is left to the `read` mode (auto by default), exactly like a built-in
 * read. A site's override of the class can then only make it stricter (policy/decide.ts).
 */
export interface ExternalToolRule {
  risk: Risk;
  /** undefined: the policy's mode for `risk` decides, as for a built-in */
  mode?: Mode;
}

export function externalToolRule(policy: ServerPolicy, tool: string, annotations: { readOnlyHint?: boolean } | undefined): ExternalToolRule {
  const risk: Risk = policy.trustAnnotations === true && annotations?.readOnlyHint === true ? 'read' : 'exec';
  const own = configuredMode(policy, tool);
  if (own !== undefined) return { risk, mode: own };
  if (risk === 'read') return { risk };
  return { risk, mode: policy.default ?? 'confirm' };
}
