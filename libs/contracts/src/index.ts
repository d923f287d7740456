/**
 * The resource schemas (zod), one family per resource: what goes in (Create, Update) and what comes out (Public).
 * The REST facade validates requests and generates OpenAPI from them; the subgraphs enforce the same rules
 * for GraphQL clients. One definition, no second copy.
 */
export { parseInput } from './parse-input';
export {
  UserCreate,
  UserUpdate,
  UserReplace,
  ResetPassword,
  UserPublic,
  UserV1,
  UserV2,
  Password,
  USERNAME_MIN,
  PASSWORD_MIN,
  type UserCreateInput,
  type UserUpdateInput,
  type UserReplaceInput,
  type ResetPasswordInput,
} from './users';
export { TokenRequest, RefreshTokenRequest, TokenResponse, type TokenRequestInput } from './auth';
export {
  ApiKeyCreate,
  ApiKeyCreated,
  ApiKeyPublic,
  ApiKeyUpdate,
  API_KEYS_PER_USER_MAX,
  type ApiKeyCreateInput,
} from './api-keys';
export {
  ItemCreate,
  ItemReplace,
  ItemUpdate,
  ItemPublic,
  ITEM_NAME_MAX,
  ITEM_DESCRIPTION_MAX,
  ITEM_PRICE_MAX,
  hasAtMostTwoDecimals,
  toCents,
  fromCents,
  type ItemCreateInput,
  type ItemReplaceInput,
  type ItemUpdateInput,
} from './items';
export {
  PostCreate,
  PostReplace,
  PostUpdate,
  PostPublic,
  CommentCreate,
  CommentUpdate,
  CommentPublic,
  POST_TITLE_MAX,
  POST_BODY_MAX,
  COMMENT_BODY_MAX,
  type PostCreateInput,
  type PostUpdateInput,
  type CommentCreateInput,
  type CommentUpdateInput,
} from './posts';
export { isEntityId, parseEntityId, entityIdParam, ENTITY_ID_MAX, ENTITY_ID_MESSAGE } from './entity-id';
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
