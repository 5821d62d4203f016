import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_REDACTIONS, containsSecret, findSecrets, redactFromNowOn, withOwnSecrets } from '../../../companion/policy/redact';
import { escapeRegExp } from '../../../shared/regexp';

// The built-in patterns skip a text that lacks a literal every match needs. Copies of the same patterns carry no
// such hint and are always scanned: both must find exactly the same secrets in any text.
const PIECES = [
  'password=hunter2', 'Password', 'PASSWD: "x1y2z3"', 'api_key=', "secret = 'abc'", 'token', 'Authorization: Basic dXNlcjpwYXNz',
  'authorization:', 'Bearer abcdefghijklmnopqrstuvwxyz012345', 'bearer', 'https://user:pa55word@example.com', '://', '@',
  'hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX', '<password>s3cret</password>', '<Passphrase>x</PASSPHRASE>',
  'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'NPMAUTHTOKEN: abcdefgh1234', 'client-key-data: QUJDREVGR0g=',
  'machine example.com login me password pw1', ' ', '\n', '\t', '"', "'", '=', ':', 'plain words', 'line 00 abcdefghij',
  // the token patterns, whole and as the literal alone
  'sk-proj-Ab3defghijklmnopqrstuvwx', 'sk-', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'gh', 'gho_', 'github_pat_11ABCDEFG0123456789abcdefghijk',
  'glpat-abcdefghij0123456789', 'gl', 'AKIAIOSFODNN7EXAMPLE', 'ASIA', 'xoxb-1234567890-abc', 'xox', 'xapp-1-A0123456789',
  'sk_live_abcdefghij0123456789', 'rk_test_', 'AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIza', 'npm_abcdefghijklmnopqrstuvwxyz0123456789',
  'npm_', 'pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NQ', 'hf_abcdefghijklmnopqrstuvwxyzabcdefgh', 'hf_',
  'SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq', 'SG.', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N',
  'eyJ', '-', '_', '.',
  // the companion's own token (withOwnSecrets), whole, cut short and with a NUL inside, and a NUL alone
  'Own.Token+4f9Q', 'Own.Tok', 'Own.T\0oken+4f9Q', '\0',
];
const OWN = 'Own.Token+4f9Q';

describe('redaction prefilter', () => {
  it('finds the same secrets as scanning every pattern everywhere', () => {
    const plain = { redact: BUILTIN_REDACTIONS.map((p) => new RegExp(p.source, p.flags)) };
    const hinted = { redact: [...BUILTIN_REDACTIONS] };
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(findSecrets(text, hinted)).toEqual(findSecrets(text, plain));
      }),
      { seed: 13, numRuns: 3000 },
    );
  });

  it('with the companion\'s own token in the list, finds and tells of the same secrets as a scan of every pattern', () => {
    const plain = { redact: [...BUILTIN_REDACTIONS.map((p) => new RegExp(p.source, p.flags)), new RegExp(escapeRegExp(OWN), 'g')] };
    const hinted = withOwnSecrets({ redact: [...BUILTIN_REDACTIONS] }, [OWN]);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(findSecrets(text, hinted)).toEqual(findSecrets(text, plain));
        expect(containsSecret(text, hinted)).toBe(containsSecret(text, plain));
      }),
      { seed: 17, numRuns: 3000 },
    );
  });

  it('a secret added to a list already looked through is found from then on', () => {
    const policy = withOwnSecrets({ redact: [...BUILTIN_REDACTIONS] }, []);
    const text = 'the paired token is Paired-9xQ2 here';
    expect(findSecrets(text, policy)).toEqual([]);
    redactFromNowOn(policy.redact, 'Paired-9xQ2');
    expect(findSecrets(text, policy)).toEqual([{ start: 20, end: 31 }]);
    expect(containsSecret(text, policy)).toBe(true);
  });
});
