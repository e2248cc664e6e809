/**
 * The core's contract for plugins and drivers, and the only core module they import (a lint rule in
 * biome.json enforces it; see docs/architecture.md#plugins). Everything else under core/ is internal and
 * may change without a plugin noticing.
 *
 * In it: the plugin contract (definition, context, CLI commands, admin calls), HTTP routers and their
 * handlers' context, the error handlers throw, WebSocket routes, the store and durable files, secrets,
 * the event bus, MQTT hooks and topic rules, metrics, and the version.
 */

export type { Bus, EventName, HearthEvents, Listener } from './bus/events.ts';
export type { ConfigOf } from './config/derive.ts';
export { HearthError, isKernelError, type KernelErrorCode } from './errors.ts';
export { relayOnly } from './http/availability.ts';
export { badRequest, HttpError, notFound } from './http/errors.ts';
export { createRateLimiter, type RateLimiter } from './http/rate-limit.ts';
export {
  jsonObjectBody,
  type RouteContext,
  type RouteMiddleware,
  requestBody,
  routeParam,
} from './http/route-context.ts';

export type {
  DirectRequest,
  DirectRoute,
  HearthMiddleware,
  HearthRouter,
  HttpApi,
  ListenerInfo,
  RouterOptions,
} from './http/types.ts';
export type { Collect, Counter, Histogram, Labels, MetricsApi } from './metrics/types.ts';
export { brokerUrlForLog, connectMqtt, type MqttClientSettings } from './mqtt/client.ts';
export { assertTopicFilter, assertTopicName, filterCovers, topicMatches } from './mqtt/topics.ts';
export type {
  MqttApi,
  MqttAuthDecision,
  MqttAuthHooks,
  MqttClientInfo,
  MqttListener,
  MqttMessage,
  MqttTopicDecision,
  PublishOptions,
} from './mqtt/types.ts';
export { adminCall } from './plugin/admin-call.ts';
export type {
  AdminClient,
  AdminKeyApi,
  CliCommand,
  CliInput,
  CliIo,
  CliOption,
  JsonSchema,
  NoticesApi,
  PluginContext,
  PluginDefinition,
  PluginExportsMap,
  PluginHealth,
  PluginName,
  RedactApi,
  RunningPlugin,
} from './plugin/types.ts';
export { definePlugin } from './plugin/types.ts';
export { SecretUnavailableError } from './secrets/cipher.ts';
export { createPasswordHasher, type PasswordHasher } from './secrets/passwords.ts';
export type { SecretsApi } from './secrets/vault.ts';
export { errCode, fsyncDir, writeFileAtomic } from './store/atomic-write.ts';
export type {
  DocStore,
  DocStoreOptions,
  LogStore,
  LogStoreOptions,
  PluginStore,
  WriteProblem,
} from './store/types.ts';
export { VERSION } from './version.ts';
export type { HearthSocket, WsApi, WsParams, WsRoute } from './ws/types.ts';
