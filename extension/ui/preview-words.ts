import type { PreviewHeading } from '../../shared/api';
import { hiddenCharacterName, hiddenKinds } from '../../shared/reveal-hidden';
import type { Approval } from '../companion/api-types';
import { timeLimit } from './format';
import { t, tn, type MessageKey } from './i18n';

type Preview = Approval['preview'];

function headingText(heading: PreviewHeading): string {
  switch (heading.kind) {
    case 'write':
      return t(`heading.${heading.mode}`, [heading.path]);
    case 'write-batch':
      return tn('heading.writeBatch', heading.files);
    case 'run':
      return t('heading.run', [heading.program, timeLimit(heading.timeoutMs)]);
    case 'shell':
      return t('heading.shell', [timeLimit(heading.timeoutMs)]);
    case 'mkdir':
      return t(heading.parents ? 'heading.mkdirParents' : 'heading.mkdir', [heading.path]);
    case 'read':
      return t('heading.read', [heading.path]);
    case 'list':
      return t('heading.list', [heading.path]);
    case 'axon':
      return t('heading.axon', [tn('heading.acts', heading.acts), tn('heading.filesChanged', heading.files)]);
    case 'autocoder':
      return t('heading.autocoder', [heading.step ? ` ${heading.step}` : '', planCounts(heading)]);
    case 'mcp':
      return t('heading.mcp', [heading.server, heading.tool]);
    case 'delete':
      if (heading.what === 'directory') return t('heading.deleteDirectory', [heading.path, tn('heading.directory', heading.entries ?? 0)]);
      return t(heading.what === 'file' ? 'heading.deleteFile' : 'heading.deleteMissing', [heading.path]);
    case 'move':
      return t(heading.overwrite ? 'heading.moveReplacing' : 'heading.move', [heading.from, heading.to]) + directory(heading.entries);
    case 'chmod':
      return t('heading.chmod', [heading.mode, heading.path, heading.current]) + directory(heading.entries);
    case 'compare':
      return heading.right !== undefined ? t('heading.compare', [heading.left, heading.right]) : t('heading.compareGiven', [heading.left]);
    case 'search':
      return t('heading.search', [heading.path, heading.query]);
    case 'filesystem': {
      const action = t(`heading.filesystemAction.${heading.action === 'list_with_sizes' ? 'listWithSizes' : heading.action}`);
      const paths = heading.paths.join(' → ');
      return heading.fails !== undefined ? t('heading.filesystemFails', [action, paths, heading.fails]) : t('heading.filesystem', [action, paths]);
    }
    case 'refused':
      return refusedText(heading);
  }
}

/** A removal, a move or a mode change that will be refused, and why; empty (the English title) without a reason. */
function refusedText(heading: Extract<PreviewHeading, { kind: 'refused' }>): string {
  const why =
    heading.protected !== undefined
      ? heading.glob !== undefined
        ? t('heading.refusedDeny', [heading.protected, heading.glob])
        : t('heading.refusedOwn', [heading.protected])
      : heading.limit !== undefined
        ? t('heading.refusedTooMany', [heading.limit])
        : heading.reason !== undefined
          ? t('heading.refusedOther', [heading.reason])
          : '';
  if (!why) return '';
  switch (heading.change) {
    case 'remove':
      return t('heading.deleteRefused', [heading.path, why]);
    case 'move':
      return `${t(heading.overwrite ? 'heading.moveReplacing' : 'heading.move', [heading.path, heading.to ?? ''])} — ${why}`;
    case 'chmod':
      return `${t('heading.chmod', [heading.mode ?? '', heading.path, heading.current ?? ''])} — ${why}`;
  }
}

/** An auto_coder plan's file changes, reads and programs, each only if there are any (as the companion's title). */
function planCounts(heading: Extract<PreviewHeading, { kind: 'autocoder' }>): string {
  const counts: Array<[number, 'heading.fileChanges' | 'heading.reads' | 'heading.programs']> = [
    [heading.changes, 'heading.fileChanges'],
    [heading.reads, 'heading.reads'],
    [heading.programs, 'heading.programs'],
  ];
  return counts
    .filter(([count]) => count > 0)
    .map(([count, key]) => tn(key, count))
    .join(t('heading.separator'));
}

/** What a move or a mode change covers below a directory, after the title. */
function directory(entries: number | undefined): string {
  return entries === undefined ? '' : ` — ${tn('heading.directory', entries)}`;
}

/**
 * An approval card's title in the person's language (popup, side panel, the chat's card), worded from the kind and
 * facts the companion sends with it; the companion's English title when it sent none (an older companion).
 */
export function approvalTitle(preview: Preview): string {
  return (preview.heading && headingText(preview.heading)) || preview.title;
}

/** The card's warning of characters a person cannot see, in the person's language; the companion's English one else. */
export function approvalWarning(preview: Preview): string | undefined {
  if (preview.warning === undefined || !preview.hidden?.length) return preview.warning;
  const { total, kinds } = hiddenKinds(
    preview.hidden.map(({ codePoint, count }) => [codePoint, count] as const),
    characterName,
    t('heading.separator'),
  );
  return t('heading.hidden', [tn('heading.hiddenCount', total), kinds]);
}

/** A hidden character's name in the person's language; its Unicode name where the locale has none. */
function characterName(codePoint: number): string | undefined {
  const name = hiddenCharacterName(codePoint);
  if (name === undefined) return undefined;
  return t(`hiddenCharacter.u${codePoint.toString(16).padStart(4, '0')}` as MessageKey) || name;
}

/**
 * The companion's notes in a diff's place, each a line of its own outside any hunk, in the person's language: a file
 * too large or too different to diff (tools/define-handler.ts unifiedDiff), text written over or appended to a binary
 * file (binaryChange), a diff cut to size (approvals/store.ts, plans/preview-diff.ts capPreview). They came in the
 * companion's English on a Chinese card too. A line that is none of them is kept as it is.
 */
const DIFF_NOTES: ReadonlyArray<[RegExp, (match: string[]) => string]> = [
  [/^\(too large to diff here: (\d+) characters before, (\d+) after\)$/, ([, before, after]) => t('diff.tooLarge', [before!, after!])],
  [
    /^\(too different to diff here within (\d+) ms: (\d+) characters before, (\d+) after\)$/,
    ([, ms, before, after]) => t('diff.tooDifferent', [timeLimit(Number(ms)), before!, after!]),
  ],
  [/^\(binary file (.+) would be replaced by (\d+) characters of text\)$/, ([, path, chars]) => t('diff.binaryReplaced', [path!, chars!])],
  [/^\((\d+) characters of text would be appended to the binary file (.+)\)$/, ([, chars, path]) => t('diff.binaryAppended', [path!, chars!])],
  [/^… \((\d+) more characters of diff not shown\)$/, ([, chars]) => t('diff.cut', [chars!])],
  [/^\[… preview cut: (\d+) more characters of diff not shown …\]$/, ([, chars]) => t('diff.cut', [chars!])],
];

/** `text` (lines of a diff that diff2html does not draw) with the companion's notes in it worded for the person. */
export function diffNotesWorded(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      for (const [pattern, words] of DIFF_NOTES) {
        const match = pattern.exec(line);
        if (match) return words([...match]);
      }
      return line;
    })
    .join('\n');
}
