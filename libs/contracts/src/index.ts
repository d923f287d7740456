/**
 * The resource schemas (zod), one family per resource: what goes in (Create, Update) and what comes out (Public).
 * The REST facade validates requests and generates OpenAPI from them; the subgraphs enforce the same rules
 * for GraphQL clients. One definition, no second copy.
 */
export { parseInput } from './parse-input';
export { UserCreate, UserUpdate, UserPublic, USERNAME_MIN, PASSWORD_MIN, type UserCreateInput, type UserUpdateInput } from './users';
