import type { McpServerProblem } from '../../shared/api';
import { timeLimit } from './format';
import { t, tn } from './i18n';

/**
 * Why one of the person's MCP servers is not running, in their language, from the facts the companion gives
 * (`problem`); a companion from before those facts gives its English `lastError` alone, which is shown as it is.
 */
export function serverProblemText(server: { problem?: McpServerProblem | undefined; lastError?: string | undefined }): string | undefined {
  const { problem } = server;
  if (problem === undefined) return server.lastError;
  const what = problemWords(problem);
  // the companion's own words are not read on as the frame's sentence: in Chinese they stand apart, said to be English
  const frame =
    problem.code === 'other'
      ? problem.starting
        ? 'mcpProblem.couldNotStartSaid'
        : 'mcpProblem.stoppedSaid'
      : problem.starting
        ? 'mcpProblem.couldNotStart'
        : 'mcpProblem.stopped';
  const said = problem.code === 'config' ? what : t(frame, [what]);
  return problem.failures === undefined ? said : joined(said, tn('mcpProblem.gaveUp', problem.failures));
}

/** Two sentences, with the space English puts between them and Chinese does not. */
function joined(first: string, next: string): string {
  return /[。！？]$/.test(first) ? `${first}${next}` : `${first} ${next}`;
}

function quoted(text: string | undefined): string {
  return JSON.stringify(text ?? '');
}

/**
 * The companion's own English words (an `other` or `config` problem's detail), which no locale can word: a sentence of
 * their own in English, quoted and said to be the companion's in Chinese.
 */
function companionWords(text: string | undefined): string {
  const said = (text ?? '').trim().replace(/[.。]$/, '');
  return said === '' ? '' : t('mcpProblem.companionSaid', [said]);
}

/** The error a system or library gave (`cause`), quoted after the sentence that says what failed. */
function withCause(said: string, cause: string | undefined): string {
  return cause === undefined || cause.trim() === '' ? said : joined(said, t('mcpProblem.cause', [cause.trim()]));
}

/** 1048576 → "1 MB", 1536 → "1.5 KB", 900 → "900 B". */
function byteSize(bytes: number | undefined): string {
  if (bytes === undefined) return '?';
  const [size, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'MB'] : bytes >= 1024 ? [bytes / 1024, 'KB'] : [bytes, 'B'];
  return `${Math.round(size * 10) / 10} ${unit}`;
}

function problemWords(p: McpServerProblem): string {
  const program = quoted(p.program);
  switch (p.code) {
    case 'program-not-found':
      return p.path === undefined ? t('mcpProblem.programMissing', [program]) : t('mcpProblem.programNotOnPath', [program, p.path]);
    case 'interpreter-missing':
      return t('mcpProblem.interpreterMissing', [program, p.file ?? '', `#!${p.interpreter ?? ''}`]);
    case 'program-not-runnable':
      return t('mcpProblem.programNotRunnable', [program, p.file ?? '']);
    case 'not-executable':
      return t('mcpProblem.notExecutable', [program]);
    case 'cwd-missing':
      return t('mcpProblem.cwdMissing', [quoted(p.cwd)]);
    case 'exited': {
      const how = p.signal !== undefined ? t('mcpProblem.exitedSignal', [p.signal]) : t('mcpProblem.exitedCode', [p.exitCode ?? '?']);
      return p.stderr === undefined ? how : joined(how, t('mcpProblem.stderr', [p.stderr]));
    }
    case 'start-timeout':
      return t('mcpProblem.startTimeout', [timeLimit(p.timeoutMs)]);
    case 'list-timeout':
      return t('mcpProblem.listTimeout', [timeLimit(p.timeoutMs)]);
    case 'auth-refused':
      if (p.signIn === 'oauth') return t('mcpProblem.oauthSignIn', [p.httpStatus ?? '?']);
      return (p.headers ?? []).length > 0
        ? t('mcpProblem.credentialsRefused', [p.httpStatus ?? '?', (p.headers ?? []).join(', ')])
        : t('mcpProblem.credentialsWanted', [p.httpStatus ?? '?']);
    case 'connection-closed':
      return t('mcpProblem.connectionClosed');
    case 'message-too-large':
      return t('mcpProblem.messageTooLarge', [byteSize(p.maxBytes)]);
    case 'not-reading':
      return t('mcpProblem.notReading');
    case 'not-answering':
      return withCause(t('mcpProblem.notAnswering'), p.cause);
    case 'call-failed':
      return withCause(t('mcpProblem.callFailed', [quoted(p.tool)]), p.cause);
    case 'list-refresh-failed':
      return withCause(t('mcpProblem.listRefreshFailed'), p.cause);
    case 'config':
      return t('mcpProblem.config', [companionWords(p.detail)]);
    case 'other':
      return companionWords(p.detail);
  }
}
