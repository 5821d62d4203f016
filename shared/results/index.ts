export { codedMessage, oneLine, pendingConfirmationText, type Outcome, type ResultMeta } from './outcome';
export { fenceFor, fenced } from './fence';
export {
  formatMcpResponse,
  mcpPendingResponse,
  mcpPendingText,
  mcpResponseFor,
  type JsonRpcId,
  type McpErrorResponse,
  type McpResponse,
  type McpResultMeta,
  type McpSuccessResponse,
} from './mcp-response';
export { formatFlycodeResult, WRITE_CONFIRMATION_REQUIRED, type FlycodeResultInput } from './flycode-result';
export {
  AUTOCODER_CLOSE,
  AUTOCODER_OPEN,
  formatAutocoderBlock,
  formatAutocoderResponse,
  formatRuntimeFeedback,
  type AutocoderResponse,
  type DirTree,
  type FileActionName,
  type FileActionReport,
  type ProgramExecReport,
  type ReplaceReport,
  type RuntimeFeedback,
} from './autocoder';
export { formatAxonResult, type AxonActReport, type AxonResultInput } from './axon';
export { formatFunctionResult, formatFunctionResults, type FunctionResultInput } from './function-result';
