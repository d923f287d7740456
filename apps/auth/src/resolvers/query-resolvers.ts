/** Root queries of the auth subgraph. */
export const queryResolvers = {
  Query: {
    _authVersion: () => '1',
  },
};
