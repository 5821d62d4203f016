export {
  applyReplacement,
  applyReplacements,
  dominantEol,
  MAX_LISTED_MATCHES,
  type ReplaceFailure,
  type ReplaceOptions,
  type ReplaceResult,
  type ReplacementsResult,
  type ReplaceStrategy,
  type TextEdit,
} from './apply-replacement';
