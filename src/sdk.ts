/**
 * The public SDK surface: `import { PostgresDb, MigrationManager, AgentOS } from "agno-edge"`.
 * Exports are listed one by one so that what is public is a decision, not an accident. Everything
 * here is free of import-time side effects, so a bundler keeps only what a Worker uses (one model
 * provider's package, say); S3 is apart, in `agno-edge/s3`, with the AWS SDK it needs.
 */
export {
  AgnoError,
  BadRequestError,
  ConfirmationRequiredError,
  ConflictError,
  ForbiddenError,
  InputCheckError,
  MigrationRequiredError,
  NotConfiguredError,
  NotFoundError,
  SchemaMismatchError,
  StatusConflictError,
  ComponentVersionConflictError,
  ComponentArchivedError,
  ComponentDependencyError,
  ComponentDraftRequiredError,
  ValidationError,
} from "./errors.js";
export type { Db, MigrateOptions, MigrationProgress, MigrationResult, UpsertRunOptions } from "./db/port.js";
export type {
  ComponentConfigRecord,
  ComponentCreate,
  ComponentLink,
  ComponentRecord,
  ComponentStore,
  ComponentType,
  ConfigWrite,
} from "./db/port.js";
export {
  ComponentRegistry,
  buildStoredAgent,
  validateComponentConfig,
  type ComponentRegistryOptions,
  type ComponentWriteEvent,
  type ComponentWriteHook,
} from "./components/index.js";
export type {
  DbAdmin,
  QueueDb,
  RunEventStore,
  RunStore,
  SessionStore,
  ToolResultStore,
  MemoryQuery,
  UserMemoryStats,
  UserMemoryStore,
  AuditEntry,
  AuditLog,
  AuditQuery,
  AuditRecord,
  ListServiceAccountsOptions,
  ServiceAccountRecord,
  ServiceAccountStore,
} from "./db/port.js";
export type {
  GetRunsOptions,
  GetSessionOptions,
  GetSessionsOptions,
  MemoryRecord,
  MessageRecord,
  Page,
  RunRecord,
  RunRow,
  RunStatus,
  RunType,
  SessionRecord,
  SessionType,
} from "./db/types.js";
export { Session, runTypeOf } from "./db/session.js";
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "./db/pagination.js";
export { MigrationManager } from "./db/migration-manager.js";
export { PostgresDb, type PostgresDbOptions } from "./db/postgres/postgres-db.js";
export { MemoryDb, MemoryTables, type MemoryDbOptions } from "./db/memory/index.js";
export { DEFAULT_TABLE_NAMES, type TableNames } from "./db/postgres/names.js";
export { CURRENT_SCHEMA_VERSION } from "../migrations/index.js";
export {
  Agent,
  type AgentOptions,
  type ContinueOptions,
  type Instructions,
  type RunContext,
  type RunOptions,
} from "./agent/agent.js";
export {
  MemoryManager,
  SessionSummaryManager,
  SummarizeStrategy,
  type MemoryManagerOptions,
  type MemoryOptimizationStrategy,
  type MemoryScope,
  type SessionSummary,
  type SessionSummaryManagerOptions,
} from "./memory/index.js";
export {
  DecisionLogStore,
  EntityMemoryStore,
  LearningMachine,
  UserProfileStore,
  type DecisionLogConfig,
  type EntityMemoryConfig,
  type LearningMachineOptions,
  type LearningMode,
  type UserMemoryConfig,
  type UserProfileConfig,
} from "./learn/index.js";
export {
  AccuracyEval,
  AgentAsJudgeEval,
  EvalError,
  PerformanceEval,
  ReliabilityEval,
  checkReliability,
  type AccuracyEvalOptions,
  type AccuracyEvaluation,
  type AccuracyResult,
  type AgentAsJudgeEvalOptions,
  type AgentAsJudgeEvaluation,
  type AgentAsJudgeResult,
  type EvalCommonOptions,
  type EvalRun,
  type EvalTarget,
  type JudgeCase,
  type PerformanceEvalOptions,
  type PerformanceResult,
  type ReliabilityEvalOptions,
  type ReliabilityResult,
  type ScoringStrategy,
} from "./evals/index.js";
export type {
  EvalFilterType,
  EvalRunQuery,
  EvalRunRecord,
  EvalRunStore,
  EvalRunWrite,
  EvalScope,
  EvalType,
} from "./db/port.js";
export {
  Condition,
  HumanReview,
  Loop,
  Parallel,
  Router,
  Step,
  StepInput,
  StepOutput,
  Steps,
  Workflow,
  type ConditionEvaluator,
  type ConditionOptions,
  type EndCondition,
  type HumanReviewOptions,
  type OnError,
  type OnReject,
  type OnTimeout,
  type ErrorRequirement,
  type LoopOptions,
  type ParallelOptions,
  type RouterOptions,
  type RouterSelection,
  type RouterSelector,
  type StepExecutor,
  type StepExecutorEvent,
  type StepExecutorRun,
  type StepFunction,
  type StepIndex,
  type StepInputFields,
  type StepLike,
  type StepMetrics,
  type StepOptions,
  type StepOutputFields,
  type StepRequirement,
  type StepRequirementResolution,
  type StepsOptions,
  type StepType,
  type WorkflowBlock,
  type WorkflowContinueOptions,
  type WorkflowEvent,
  type WorkflowEventName,
  type WorkflowEventOf,
  type WorkflowMetrics,
  type WorkflowOptions,
  type WorkflowRunOptions,
  type WorkflowRunOutput,
  type WorkflowStreamEvent,
} from "./workflow/index.js";
export { enableCel } from "./workflow/enable-cel.js";
export type {
  AgentRunEvent,
  EventOf,
  RunEvent,
  RunEventName,
  TeamEventName,
  TeamLeaderEvent,
  TeamTaskEvent,
} from "./agent/events.js";
export {
  Team,
  TEAM_MODES,
  TaskList,
  TASK_LIST_KEY,
  type TeamMode,
  type TeamOptions,
  type Task,
  type TaskStatus,
} from "./team/index.js";
export type {
  MemberMetrics,
  RunInput,
  RunMetrics,
  RunOutput,
  RunRequirement,
  ToolExecution,
  UserInputField,
} from "./agent/run-output.js";
export {
  DEFAULT_MEDIA_LIMITS,
  SUPPORTED_MIME_TYPES,
  type MediaInput,
  type MediaLimits,
  type RunMedia,
} from "./agent/media.js";
export type { RequirementResolution } from "./agent/hitl.js";
export { tool, Toolkit, type Tool, type ToolContext, type ToolOptions } from "./tools/tool.js";
export { ToolPause, type ResumedCall } from "./tools/tool-pause.js";
// A toolkit's background work: its tools enqueue jobs (ToolContext.enqueueJob) that its handlers run on the durable queue.
export type { JobHandler, JobHandlerContext } from "./queue/job-handler.js";
export type { EnqueuedJob, ToolJob } from "./queue/job-enqueuer.js";
export type { Outcome as JobOutcome } from "./queue/executor.js";
// Built-in toolkits: fetch and Web APIs only, no dependencies of their own, so they cost an app
// nothing unless it uses them (the bundler drops the rest).
export {
  AgentMailTools,
  CalculatorTools,
  CustomApiTools,
  DateTimeTools,
  FileTools,
  FINANCE_CAPABILITIES,
  FinanceProviderError,
  FinanceTools,
  financialDatasetsProvider,
  yahooFinanceProvider,
  GithubTools,
  MiniMaxTools,
  pgPoolConnector,
  ResendTools,
  searxngProvider,
  SQLTools,
  StudioTools,
  tavilyProvider,
  UpstreamError,
  verifyAgentMailWebhook,
  WebFetchTools,
  WebSearchTools,
  type AgentMailToolsOptions,
  type AgentMailWebhookEvent,
  type CalculatorToolsOptions,
  type CustomApiToolsOptions,
  type DateTimeToolsOptions,
  type FileToolsOptions,
  type AnalystRecommendations,
  type CompanyProfile,
  type EarningsReport,
  type Filing,
  type FinanceCapability,
  type FinanceInterval,
  type FinancePeriod,
  type FinanceProvider,
  type FinanceRequest,
  type FinanceStatementKind,
  type FinanceStatementPeriod,
  type FinanceToolsOptions,
  type FinancialDatasetsOptions,
  type YahooFinanceOptions,
  type FinancialStatement,
  type InsiderTrade,
  type KeyMetrics,
  type NewsItem,
  type PriceBar,
  type PriceHistory,
  type Quote,
  type SymbolMatch,
  type GithubToolsOptions,
  type MiniMaxToolsOptions,
  type MiniMaxVideoModel,
  type MiniMaxVideoResult,
  type NewsResult,
  type PgLikePool,
  type ProviderHttpOptions,
  type ResendToolsOptions,
  type SearchProvider,
  type SearchRequest,
  type SearxngOptions,
  type SqlConnector,
  type SqlResult,
  type SqlSession,
  type SqlToolsOptions,
  type StudioError,
  type StudioErrorCode,
  type StudioResult,
  type StudioToolsOptions,
  type TavilyOptions,
  type VerifyAgentMailWebhookOptions,
  type WebFetchToolsOptions,
  type WebResult,
  type WebSearchToolsOptions,
} from "./toolkits/index.js";
export { isToolSource, type ToolSource, type ToolSourceContext } from "./tools/tool-source.js";
export { ToolResult, type ToolMedia } from "./tools/tool-result.js";
export { jsonSchemaTool, type JsonSchemaToolOptions } from "./tools/json-schema-tool.js";
export { MCPTools, type MCPToolsOptions, type McpAuthTokenGetter, type McpHeaderProvider } from "./tools/mcp/index.js";
export {
  CodeMode,
  type CellRequest,
  type CodeModeOptions,
  type CodeRunner,
  type ToolHost,
} from "./codemode/code-mode.js";
export { memoryCodeRunner } from "./codemode/memory-runner.js";
export {
  DEFAULT_LIMITS as CODEMODE_DEFAULT_LIMITS,
  type CellError,
  type CellLimits,
  type CellResult,
  type StateEntry,
  type ToolAnswer,
} from "./codemode/sandbox.js";
export { codeToolDescription, toolSignature } from "./codemode/signatures.js";
export { ResultStore, pruneToolResults, type ResultStoreOptions } from "./offload/result-store.js";
export type { ToolResultRecord } from "./db/port.js";
export type { MediaKind, MediaRecord, Message, Role, ToolCallRecord } from "./models/message.js";
export {
  MediaStorage,
  type MediaReference,
  type MediaStorageOptions,
  type StoreMediaOptions,
} from "./offload/media-storage.js";
export type {
  GetOptions,
  ListOptions,
  ObjectStorage,
  PutOptions,
  StoredObject,
  StoredObjectInfo,
} from "./offload/object-storage.js";
export type {
  FinishReason,
  MediaInfo,
  Model,
  ModelChunk,
  ModelRequest,
  TokenUsage,
  ToolDefinition,
} from "./models/model.js";
export { AiSdkModel, type ModelSettings } from "./models/ai-sdk-model.js";
export {
  createModel,
  credentialsFromEnv,
  parseModelSpec,
  PROVIDERS,
  BUILTIN_PROVIDERS,
  type ProviderName,
} from "./models/providers.js";
export type {
  ModelOptions,
  ModelProvider,
  ProviderCredentials,
  ProviderModelOptions,
} from "./models/model-provider.js";
export { ModelRegistry } from "./models/model-registry.js";
export { defaultModelRegistry } from "./models/default-model-registry.js";
export { openAICompatibleProvider } from "./models/openai-compatible-provider.js";
export { WorkersAIModel, type WorkersAIBinding, type WorkersAISettings } from "./models/workers-ai-model.js";
export { openai } from "./models/providers/openai.js";
export { openaiResponses } from "./models/providers/openai-responses.js";
export { anthropic } from "./models/providers/anthropic.js";
export { google } from "./models/providers/google.js";
export { groq } from "./models/providers/groq.js";
export { cerebras } from "./models/providers/cerebras.js";
export { mistral } from "./models/providers/mistral.js";
export { openrouter } from "./models/providers/openrouter.js";
export { ollama } from "./models/providers/ollama.js";
export { vllm } from "./models/providers/vllm.js";
export { openaiCompatible } from "./models/providers/openai-compatible.js";
export { workersAI } from "./models/providers/workers-ai.js";
export { xai, xaiProvider } from "./models/providers/xai.js";
export { xaiResponses, xaiResponsesProvider } from "./models/providers/xai-responses.js";
export { ramp, rampProvider, type RampRouterOptions } from "./models/providers/ramp.js";
export {
  XAITokenManager,
  type DeviceLoginInfo,
  type DevicePollResult,
  type DevicePollStatus,
  type XAITokenManagerOptions,
} from "./models/xai/xai-token-manager.js";
export type { XaiOAuthOptions } from "./models/xai/xai-credential.js";
export { XaiAuthError } from "./models/xai/xai-auth-error.js";
export { generateEncryptionKey } from "./models/xai/fernet.js";
export { xaiLoginRoutes, type XaiLoginRoutes } from "./os/routes/xai-login.js";
export type { AuthTokenRow, AuthTokenStore } from "./models/xai/auth-token-store.js";
export { MemoryAuthTokenStore } from "./models/xai/memory-auth-token-store.js";
export { PostgresAuthTokenStore, type SqlQueryable } from "./models/xai/postgres-auth-token-store.js";
export { ModelProviderError, type ProviderErrorKind } from "./models/provider-error.js";
export { runDueSchedules, type SchedulerDb, type SchedulerOptions, type TickReport } from "./scheduler/run-due.js";
export { triggerSchedule } from "./scheduler/dispatch.js";
export { nextOccurrence, validateCron } from "./scheduler/cron.js";
export { SCHEDULE_MUTABLE_FIELDS } from "./scheduler/types.js";
export type {
  Schedule,
  ScheduleInput,
  ScheduleRun,
  ScheduleRunStatus,
  ScheduleScope,
  ScheduleStore,
  ScheduleTicks,
  ScheduleUpdate,
} from "./scheduler/types.js";
export {
  Knowledge,
  MAX_CONTENT_BYTES,
  type ContentFetcher,
  type ContentScope,
  type KnowledgeConfigInfo,
  type KnowledgeOptions,
  type KnowledgeSearchOptions,
} from "./knowledge/knowledge.js";
export type {
  ContentInput,
  ContentPage,
  ContentRecord,
  ContentStatus,
  ListContentsOptions,
} from "./knowledge/content.js";
export { documentToDict, type KnowledgeDocument } from "./knowledge/document.js";
export type { Embedder, EmbedResult } from "./knowledge/embedder.js";
export type { Reader, ReaderInput } from "./knowledge/reader.js";
export type { ChunkingStrategy } from "./knowledge/chunking.js";
export type { Reranker } from "./knowledge/reranker.js";
export type { SearchType, VectorDb, VectorRecord, VectorSearchOptions } from "./knowledge/vector-db.js";
export {
  AND,
  EQ,
  GT,
  GTE,
  IN,
  LT,
  LTE,
  NEQ,
  NOT,
  OR,
  normalizeFilters,
  type FilterExpr,
  type KnowledgeFilters,
} from "./knowledge/filters.js";
export {
  EmbedderError,
  UnsupportedContentTypeError,
  VectorExtensionUnavailableError,
  VectorTableMigrationRequiredError,
} from "./knowledge/errors.js";
export type { KnowledgeUseOptions, MessageReferences } from "./knowledge/agent-knowledge.js";
export {
  DocumentChunking,
  FixedSizeChunking,
  MarkdownChunking,
  RecursiveChunking,
  RowChunking,
} from "./knowledge/chunking/index.js";
export {
  CsvReader,
  HtmlReader,
  JsonReader,
  MarkdownReader,
  PdfReader,
  TextReader,
  builtinPdfEngine,
  defaultReaders,
  type PdfEngine,
  type PdfReaderOptions,
} from "./knowledge/readers/index.js";
export { AiSdkEmbedder, type AiSdkEmbedderOptions } from "./knowledge/embedders/ai-sdk-embedder.js";
export { openAIEmbedder } from "./knowledge/embedders/openai-embedder.js";
export { openAICompatibleEmbedder } from "./knowledge/embedders/openai-compatible-embedder.js";
export { googleEmbedder } from "./knowledge/embedders/google-embedder.js";
export { mistralEmbedder } from "./knowledge/embedders/mistral-embedder.js";
export { WorkersAIEmbedder } from "./knowledge/embedders/workers-ai-embedder.js";
export { embedderFromSpec } from "./knowledge/embedders/embedder-spec.js";
export { InMemoryVectorDb } from "./knowledge/vectordb/in-memory-vector-db.js";
export { PgVector, type PgVectorOptions } from "./knowledge/vectordb/pgvector/pg-vector.js";
export { pgliteExecutor } from "./knowledge/vectordb/pgvector/pglite-executor.js";
export type { SqlExecutor } from "./knowledge/vectordb/pgvector/sql-executor.js";
export type { KnowledgeContentStore } from "./db/ports/knowledge-content-store.js";
export { AgentOS, type AgentOSOptions } from "./os/agent-os.js";
export type { AuthConfig } from "./os/auth/middleware.js";
export { recordAudit } from "./os/audit.js";
export type { RequestServices } from "./os/context.js";
export type { McpServerOptions } from "./mcp/mcp-server-options.js";
export { mcpServer, type McpServerMount } from "./mcp/mcp-server.js";
export {
  MCP_BUILTIN_TAGS,
  type McpBuiltinTag,
  type McpCaller,
  type McpTool,
  type McpToolAnnotations,
  type McpToolAnswer,
  type McpToolResult,
} from "./mcp/mcp-tool.js";
export { McpToolError } from "./mcp/mcp-tool-error.js";
export type { McpResultMode } from "./mcp/run-tool-result.js";
export { WhatsApp, WhatsAppApiError, type WhatsAppOptions } from "./interfaces/whatsapp/index.js";
export {
  Telegram,
  TelegramApi,
  TelegramApiError,
  setTelegramWebhook,
  markdownToTelegramHtml,
  splitTelegramHtml,
  type TelegramOptions,
} from "./interfaces/telegram/index.js";
export { Slack, type SlackOptions } from "./interfaces/slack/slack.js";
export { AGUI, type AGUIOptions } from "./interfaces/agui/index.js";
export { A2A, A2A_PROTOCOL_VERSION, type A2AOptions } from "./interfaces/a2a/index.js";
export type { ChatInterface, InterfaceJobDeps } from "./interfaces/chat-interface.js";
export { isChatInterface } from "./interfaces/chat-interface.js";
export type { OSInterface, InterfaceRouteDeps } from "./interfaces/os-interface.js";
export type { RunFollower } from "./interfaces/run-follower.js";
export type { ReplyTarget } from "./interfaces/reply-target.js";
export { enqueueInterfaceRun, type InterfaceMessage } from "./interfaces/enqueue-interface-run.js";
export { enqueueInterfaceContinue, type InterfaceAnswer } from "./interfaces/enqueue-interface-continue.js";
export { interfaceSessionId } from "./interfaces/interface-session-id.js";
// Tracing (issue 23): spans of runs, model and tool calls, to agno's trace tables and/or an OTLP collector.
export { Tracer, type TracerOptions, type StartSpanOptions } from "./tracing/tracer.js";
export { Span, type FinishedSpan, type Attributes, type AttributeValue, type SpanKind } from "./tracing/span.js";
export type { SpanContext } from "./tracing/span-context.js";
export type { SpanExporter } from "./tracing/span-exporter.js";
export type { TraceScope } from "./tracing/trace-scope.js";
export { DbSpanExporter } from "./tracing/db-exporter.js";
export { OtlpHttpExporter, parseOtlpHeaders, type OtlpHttpOptions } from "./tracing/otlp-http-exporter.js";
export { parseTraceparent, formatTraceparent } from "./tracing/traceparent.js";
export { tracerFor, type TracingSettings } from "./tracing/tracing-settings.js";
