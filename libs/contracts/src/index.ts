/**
 * The REST and GraphQL contract: one declaration per resource (resources/) and what derives from it (the REST bodies
 * and representations as zod schemas, from which the facade validates and OpenAPI is generated; the SDL, documents and
 * GraphQL input rules), the token endpoints' schemas, and the rules every transport shares (entity ids, text, identity).
 */
export { parseInput } from './parse-input';
export * from './resources';
export { TokenRequest, RefreshTokenRequest, TokenResponse, type TokenRequestInput } from './auth';
export {
  UserCreate,
  UserUpdate,
  UserReplace,
  UserPublic,
  UserV1,
  UserV2,
  ItemCreate,
  ItemReplace,
  ItemUpdate,
  ItemPublic,
  PostCreate,
  PostReplace,
  PostUpdate,
  PostPublic,
  CommentCreate,
  CommentUpdate,
  CommentPublic,
  ApiKeyCreate,
  ApiKeyUpdate,
  ApiKeyPublic,
  ApiKeyCreated,
} from './bodies';
export { isEntityId, parseEntityId, entityIdParam, ENTITY_ID_MAX, ENTITY_ID_MESSAGE } from './entity-id';
export { isRfc3339DateTime, DATE_TIME_MESSAGE } from './date-time';
export { jsonTooDeep, jsonTooDeepMessage, MAX_JSON_DEPTH } from './json-depth';
export { text, isSafeText, UNSAFE_TEXT_MESSAGE } from './text';
export { normalizeEmail, foldUsername, foldEmail } from './identity';
export { requestTarget } from './request-target';
export {
  EventsQuery,
  EventPublic,
  EventPage,
  EVENTS_PAGE_SIZE,
  WebhookCreate,
  WebhookUpdate,
  WebhookRotate,
  WebhookPublic,
  WebhookWithSecret,
  WebhookDeliveryPublic,
  WebhookDeliveriesQuery,
  WebhookDeliveryPage,
} from './events';
export {
  Deadline,
  DEADLINE_HEADER,
  COMMIT_TIMEOUT_HEADER,
  DEFAULT_DEADLINE_MS,
  DEFAULT_COMMIT_TIMEOUT_MS,
  MUTATION_SLACK_MS,
  currentDeadline,
  deadlineExceeded,
  withDeadline,
} from './deadline';
