/**
 * The REST bodies and representations by name, as the routes and OpenAPI know them (`ItemCreate`, `Item`...): each one
 * derived from its resource's declaration (resources/rest-schemas.ts).
 */
import { apiKeys, comments, items, posts, restSchemas, users } from './resources';

const user = restSchemas(users);
const item = restSchemas(items);
const post = restSchemas(posts);
const comment = restSchemas(comments);
const apiKey = restSchemas(apiKeys);

export const { create: UserCreate, update: UserUpdate, replace: UserReplace, public: UserPublic } = user;
export const { v1: UserV1, v2: UserV2 } = user.views as Record<'v1' | 'v2', typeof user.public>;
export const { create: ItemCreate, replace: ItemReplace, update: ItemUpdate, public: ItemPublic } = item;
export const { create: PostCreate, replace: PostReplace, update: PostUpdate, public: PostPublic } = post;
export const { create: CommentCreate, update: CommentUpdate, public: CommentPublic } = comment;
export const { create: ApiKeyCreate, update: ApiKeyUpdate, public: ApiKeyPublic } = apiKey;
export const ApiKeyCreated = (apiKey.views as Record<'created', typeof apiKey.public>).created;
