import { AUTOCODER_FILE_ACTIONS, PLAN_TYPES, type AutocoderPlan } from '../../shared/protocols';

/**
 * The most programs one plan may start. They all start at once (seed 002), each with its own output buffer, and an
 * allow-listed command needs no card: without a bound one block started an allow-listed `npm test` 300 times at once.
 */
export const MAX_PROGRAMS = 16;

/**
 * Reads an auto_coder plan (seed 002, DESIGN §3.3) into typed steps, or says precisely what is wrong with it.
 * Pure: nothing here touches the disk. A plan with any structural problem (unknown type or action, a missing
 * path, a program without a command) is refused whole — acting on a plan the model wrote wrongly would run steps
 * it did not mean; the reply names every problem so the next plan can be right.
 */

export const FILE_ACTIONS = AUTOCODER_FILE_ACTIONS;
export type FileActionType = (typeof FILE_ACTIONS)[number];

export interface ReplaceBlock {
  identifier: string;
  oldContent: string;
  newContent: string;
}

export type FileStep =
  | { action: 'create_file'; path: string; content: string }
  | { action: 'replace_file'; path: string; blocks: ReplaceBlock[] }
  | { action: Exclude<FileActionType, 'create_file' | 'replace_file'>; path: string };

export interface ProgramStep {
  name: string;
  command: string;
  /** seconds, when the plan gave one */
  timeoutSeconds?: number;
}

export interface StopStep {
  name: string;
  terminal: boolean;
}

export interface PlanMetadata {
  step_id: string;
  reason: string;
}

export type ReadPlan =
  | { type: 'finish'; metadata: PlanMetadata }
  | { type: 'operate'; metadata: PlanMetadata; files: FileStep[]; programs: ProgramStep[] }
  | { type: 'check_program'; metadata: PlanMetadata; stops: StopStep[] }
  | {
      type: 'invalid';
      metadata: PlanMetadata;
      /** every problem, one line each */
      problems: string[];
      /** what each file operation looked like, so the reply can list them all as not run */
      files: Array<{ action: string; path: string; problem?: string }>;
      programs: Array<{ name: string; problem?: string }>;
    };

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

export function readPlanMetadata(plan: AutocoderPlan): PlanMetadata {
  const metadata = plan.metadata && typeof plan.metadata === 'object' ? plan.metadata : {};
  return { step_id: text(metadata.step_id), reason: text(metadata.reason) };
}

export function readAutocoderPlan(plan: AutocoderPlan): ReadPlan {
  const metadata = readPlanMetadata(plan);
  const problems: string[] = [];
  const fileReports: Array<{ action: string; path: string; problem?: string }> = [];
  const programReports: Array<{ name: string; problem?: string }> = [];

  const type = plan.type;
  if (!(PLAN_TYPES as readonly unknown[]).includes(type)) {
    problems.push(
      `type ${describe(type)} is not one of ${PLAN_TYPES.join(', ')}: use "operate" to edit files or run programs, "finish" when the task is done, "check_program" to stop a running program`,
    );
  }
  if (type === 'finish' && problems.length === 0) return { type: 'finish', metadata };

  const rawFiles = plan.file_operations;
  const rawPrograms = plan.program_operations;
  if (rawFiles !== undefined && rawFiles !== null && !Array.isArray(rawFiles)) {
    problems.push(`file_operations must be a list of operations, got ${describe(rawFiles)}`);
  }
  if (rawPrograms !== undefined && rawPrograms !== null && !Array.isArray(rawPrograms)) {
    problems.push(`program_operations must be a list of programs, got ${describe(rawPrograms)}`);
  }
  const fileList: unknown[] = Array.isArray(rawFiles) ? rawFiles : [];
  const programList: unknown[] = Array.isArray(rawPrograms) ? rawPrograms : [];

  if (type === 'check_program' && problems.length === 0) {
    const stops: StopStep[] = [];
    programList.forEach((raw, index) => {
      const op = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
      const problem =
        typeof op.name !== 'string' || op.name.trim() === ''
          ? `program_operations[${index}] has no name; check_program stops programs by the name they were started with`
          : undefined;
      programReports.push({ name: text(op.name), ...(problem ? { problem } : {}) });
      if (problem) problems.push(problem);
      else stops.push({ name: (op.name as string).trim(), terminal: op.terminal === true });
    });
    if (programList.length === 0) {
      problems.push('check_program needs program_operations: [{"name": "<program name>", "terminal": true}]');
    }
    if (problems.length === 0) return { type: 'check_program', metadata, stops };
    return { type: 'invalid', metadata, problems, files: [], programs: programReports };
  }

  const files: FileStep[] = [];
  fileList.forEach((raw, index) => {
    const where = `file_operations[${index}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      const problem = `${where} must be an object with action_type and path, got ${describe(raw)}`;
      problems.push(problem);
      fileReports.push({ action: '', path: '', problem });
      return;
    }
    const op = raw as Record<string, unknown>;
    const action = op.action_type;
    const path = op.path;
    const report = { action: text(action), path: text(path) };
    let problem: string | undefined;
    if (!(FILE_ACTIONS as readonly unknown[]).includes(action)) {
      problem = `${where}.action_type ${describe(action)} is not one of ${FILE_ACTIONS.join(', ')}`;
    } else if (typeof path !== 'string' || (path.trim() === '' && action !== 'list_tree')) {
      problem = `${where} (${action as string}) has no path; give a path relative to the workspace root`;
    } else if (action === 'create_file' && typeof op.file_content !== 'string') {
      problem = `${where} (create_file ${path}) needs file_content as a string (use "" for an empty file), got ${describe(op.file_content)}`;
    } else if (action === 'replace_file') {
      const blocks = op.modify_content;
      if (!Array.isArray(blocks) || blocks.length === 0) {
        problem = `${where} (replace_file ${path}) needs modify_content: [{"identifier", "old_content", "new_content"}], got ${describe(blocks)}`;
      } else {
        const bad = blocks.findIndex(
          (block) =>
            !block ||
            typeof block !== 'object' ||
            typeof (block as Record<string, unknown>).old_content !== 'string' ||
            typeof (block as Record<string, unknown>).new_content !== 'string',
        );
        if (bad >= 0) {
          problem = `${where}.modify_content[${bad}] needs old_content and new_content as strings, got ${describe(blocks[bad])}`;
        }
      }
    }
    if (problem) {
      problems.push(problem);
      fileReports.push({ ...report, problem });
      return;
    }
    fileReports.push(report);
    const trimmedPath = (path as string).trim();
    if (action === 'create_file') files.push({ action, path: trimmedPath, content: op.file_content as string });
    else if (action === 'replace_file') {
      const blocks = (op.modify_content as Array<Record<string, unknown>>).map((block, j) => ({
        identifier: text(block.identifier) || `block ${j + 1}`,
        oldContent: block.old_content as string,
        newContent: block.new_content as string,
      }));
      files.push({ action, path: trimmedPath, blocks });
    } else files.push({ action: action as Exclude<FileActionType, 'create_file' | 'replace_file'>, path: trimmedPath });
  });

  const programs: ProgramStep[] = [];
  const seen = new Set<string>();
  if (programList.length > MAX_PROGRAMS) {
    problems.push(
      `program_operations holds ${programList.length} programs; a plan runs at most ${MAX_PROGRAMS} programs (they all start at once): split them over several plans`,
    );
  }
  programList.forEach((raw, index) => {
    const where = `program_operations[${index}]`;
    const op = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
    const name = typeof op.name === 'string' ? op.name.trim() : '';
    let problem: string | undefined;
    let timeoutSeconds: number | undefined;
    if (name === '') problem = `${where} has no name; every program needs a name (program_execs are keyed by it)`;
    else if (seen.has(name)) problem = `${where}: the name ${JSON.stringify(name)} is used twice; program names must be unique in a plan`;
    else if (typeof op.command !== 'string' || op.command.trim() === '') {
      problem = `${where} (${name}) has no command; give the shell command to run, e.g. "python main.py"`;
    } else if (op.set_timeout !== undefined && op.set_timeout !== null) {
      const seconds = typeof op.set_timeout === 'string' ? Number(op.set_timeout) : op.set_timeout;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
        problem = `${where} (${name}).set_timeout ${describe(op.set_timeout)} must be a positive number of seconds`;
      } else timeoutSeconds = seconds;
    }
    seen.add(name);
    programReports.push({ name: name || `program ${index + 1}`, ...(problem ? { problem } : {}) });
    if (problem) problems.push(problem);
    else programs.push({ name, command: op.command as string, ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) });
  });

  if (problems.length > 0) return { type: 'invalid', metadata, problems, files: fileReports, programs: programReports };
  return { type: 'operate', metadata, files, programs };
}
