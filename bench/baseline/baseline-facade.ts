/**
 * The docs-default baseline's REST facade (issue 19): express, `GET /users/:id` posting one GraphQL query to the
 * baseline gateway with the platform's `fetch` and mapping the answer to the REST shape; the facade a team writes in
 * front of Apollo's gateway in an afternoon. No auth, validation, rate limits or logging (the baseline is the chain,
 * not our feature set). Bundled into dist/tools/bench-baseline-facade.js; the bench runner starts it with
 * GATEWAY_URL and PORT.
 */
import express from 'express';

const USER_QUERY = 'query User($id: ID!) { user(id: $id) { id username email fullName isActive role } }';

interface UserAnswer {
  data?: { user: { id: string; username: string; email: string; fullName: string | null; isActive: boolean; role: string } | null };
  errors?: unknown[];
}

const gatewayUrl = process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:4000/';
const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/users/:id', async (req, res) => {
  const response = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: USER_QUERY, variables: { id: req.params.id } }),
  });
  const body = (await response.json()) as UserAnswer;
  const user = body.data?.user;
  if (body.errors?.length || !response.ok) {
    res.status(502).json({ detail: 'Bad gateway' });
  } else if (!user) {
    res.status(404).json({ detail: 'User not found' });
  } else {
    res.json({ id: Number(user.id), username: user.username, email: user.email, full_name: user.fullName, is_active: user.isActive, role: user.role });
  }
});
const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
