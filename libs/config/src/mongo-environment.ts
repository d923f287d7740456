/** The MongoDB settings every subgraph reads (each adds its own `MONGO_DB`): one declaration, four subgraphs. */
import { z } from 'zod';
import { booleanFlag } from './common-environment';

export const mongoEnvironment = z.object({
  MONGO_URL: z.string().min(1).default('mongodb://127.0.0.1:27017/'),
  /**
   * `create` (default): the subgraph creates its indexes at start. `verify`: it only checks they exist and stays
   * unready until they do (production on Kubernetes: the Job `mongo-indexes` builds them before the apps roll,
   * docs/mongodb.md).
   */
  MONGO_INDEXES: z.enum(['create', 'verify']).default('create'),
  /**
   * Production refuses a MongoDB that is neither a replica-set member nor a mongos (no failover, no majority writes);
   * `true` accepts one (a single FerretDB in tests and the benchmark). Never set it for a real deployment.
   */
  MONGO_ALLOW_STANDALONE: booleanFlag(false),
});
