/** What a subgraph holds of an entity another subgraph owns (`{ id }`): the parent its extending resolvers get. */
export interface EntityReference {
  id: string;
}
