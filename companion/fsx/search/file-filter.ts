/**
 * The per-file rules both backends share, so they cannot drift: ripgrep gets the cheap ones as flags to
 * prune its walk, and every file it reports is checked here again; the JS walk checks them as it goes.
 */
import type { Stats } from 'node:fs';
import path from 'node:path';
import { SKIPPED_DIRS, type SearchQuery } from './types';
import { modelGlob } from '../model-glob';

export interface FileFilter {
  /** a directory entry the walk should not enter or a file it should not read, by path alone */
  skipsPath(absolute: string): boolean;
  /** the rules that need no stat: skipped and denied paths, glob, extensions */
  acceptsPath(absolute: string): boolean;
  /** the rules that need a stat: a regular file, size, mtime */
  acceptsStat(stat: Stats): boolean;
  /** a file the search should read, by path and stat */
  acceptsFile(absolute: string, stat: Stats): boolean;
}

export function createFileFilter(query: SearchQuery, startIsFile: boolean): FileFilter {
  const globMatch = query.glob ? modelGlob(query.glob, 'glob', { dot: true, basename: !query.glob.includes('/') }) : undefined;
  const extensions = query.extensions?.map((ext) => ext.replace(/^\./, '').toLowerCase());
  const base = startIsFile ? path.dirname(query.start) : query.start;
  const relative = (absolute: string) => path.relative(base, absolute).split(path.sep).join('/');
  return {
    skipsPath(absolute) {
      if (query.isDenied(absolute)) return true;
      const parts = relative(absolute).split('/');
      return parts.some((part) => SKIPPED_DIRS.includes(part));
    },
    acceptsPath(absolute) {
      if (this.skipsPath(absolute)) return false;
      if (globMatch && !startIsFile && !globMatch(relative(absolute))) return false;
      if (extensions && !startIsFile && !extensions.includes(path.extname(absolute).slice(1).toLowerCase())) return false;
      return true;
    },
    acceptsStat(stat) {
      if (!stat.isFile()) return false;
      if (query.minBytes !== undefined && stat.size < query.minBytes) return false;
      if (query.maxBytes !== undefined && stat.size > query.maxBytes) return false;
      if (query.mtimeFrom && stat.mtime < query.mtimeFrom) return false;
      if (query.mtimeTo && stat.mtime > query.mtimeTo) return false;
      return true;
    },
    acceptsFile(absolute, stat) {
      return this.acceptsStat(stat) && this.acceptsPath(absolute);
    },
  };
}

/** Finds the first match in one line; the column is 1-based in characters. */
export function createLineMatcher(query: SearchQuery): (line: string) => number | undefined {
  if (!query.regex) {
    return (line) => {
      const index = line.indexOf(query.query);
      return index >= 0 ? index + 1 : undefined;
    };
  }
  const pattern = new RegExp(query.query);
  return (line) => {
    const match = pattern.exec(line);
    return match ? match.index + 1 : undefined;
  };
}

/** Lines split on \n only (a \r stays part of the line, as ripgrep sees it). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
