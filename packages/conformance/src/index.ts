export type {
  CancellationDialect,
  ConformanceConfig,
  ConformanceConfigInput,
  MethodNames,
  MethodRole,
} from './config.js';
export { DEFAULT_CONFIG, DEFAULT_MAX_ANSWER_BYTES, loadConfig, resolveConfig } from './config.js';
export type { Target, TransportKind } from './context.js';
export type { Framing } from './framing.js';
export { formatResult, formatSummary } from './report.js';
export type {
  CaseGroup,
  CaseResult,
  ConformanceReport,
  GroupCounts,
  RunConformanceOptions,
} from './run.js';
export { caseGroup, caseIds, describeTarget, runConformance } from './run.js';
