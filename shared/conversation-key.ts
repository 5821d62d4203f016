/**
 * What a chat page with no conversation id yet (a new chat, a temporary one, a site that keeps every chat at one
 * address) is keyed by, before its host, path and the name the tab gives its new chat: no address names such a
 * chat, and it may never get one, so the companion grants nothing "for this conversation" there.
 */
export const UNSAVED_CONVERSATION_PREFIX = 'new:';

/** Whether "approve for this conversation" can mean one conversation here: not for a chat without an id yet. */
export function grantsConversationWide(conversationId: string): boolean {
  return !conversationId.startsWith(UNSAVED_CONVERSATION_PREFIX);
}
