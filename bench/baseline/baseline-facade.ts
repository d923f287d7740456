/**
 * The peers' REST facade (issue 19; the write and the Authorization pass-through added for issue 29): express,
 * `GET /users/:id` posting one GraphQL query to a gateway with the platform's `fetch` and mapping the answer to the REST
 * shape, and `PATCH /users/:id` posting the `updateUser` mutation; the facade a team writes in front of a gateway in an
 * afternoon. No validation, rate limits, logging or auth of its own: a client's `Authorization` is passed on as is (the
 * docs-default chain ignores it; our subgraphs behind Hive Gateway verify it). The same script fronts the docs-default
 * gateway (`baseline-facade`) and Hive Gateway (`hive-facade`): both schemas take these two documents. Bundled into
 * dist/tools/bench-baseline-facade.js; the bench runner starts it with GATEWAY_URL and PORT.
 */
import express from 'express';

const USER_FIELDS = 'id username email fullName isActive role';
const USER_QUERY = `query User($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`;
const UPDATE_USER = `mutation UpdateUser($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER_FIELDS} } }`;

interface GraphQLUser {
  id: string;
  username: string;
  email: string;
  fullName: string | null;
  isActive: boolean;
  role: string;
}

interface Answer {
  data?: { user?: GraphQLUser | null; updateUser?: GraphQLUser | null } | null;
  errors?: unknown[];
}

const gatewayUrl = process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:4000/';

async function post(req: express.Request, query: string, variables: Record<string, unknown>): Promise<{ ok: boolean; body: Answer }> {
  const authorization = req.headers.authorization;
  const response = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { ok: response.ok, body: (await response.json()) as Answer };
}

const toRest = (user: GraphQLUser) => ({
  id: Number(user.id),
  username: user.username,
  email: user.email,
  full_name: user.fullName,
  is_active: user.isActive,
  role: user.role,
});

const app = express();
app.use(express.json());
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/users/:id', async (req, res) => {
  const { ok, body } = await post(req, USER_QUERY, { id: req.params.id });
  const user = body.data?.user;
  if (body.errors?.length || !ok) {
    res.status(502).json({ detail: 'Bad gateway' });
  } else if (!user) {
    res.status(404).json({ detail: 'User not found' });
  } else {
    res.json(toRest(user));
  }
});
app.patch('/users/:id', async (req, res) => {
  const given = (req.body ?? {}) as { full_name?: string | null };
  const { ok, body } = await post(req, UPDATE_USER, { id: req.params.id, input: { fullName: given.full_name ?? null } });
  const user = body.data?.updateUser;
  if (body.errors?.length || !ok || !user) {
    res.status(502).json({ detail: 'Bad gateway' });
  } else {
    res.json(toRest(user));
  }
});
const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
