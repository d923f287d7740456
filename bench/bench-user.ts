/** The stored user as the bench's own servers (the floor, the docs-default baseline) read it: the fields a read returns. */
export interface BenchUser {
  _id: number;
  username: string;
  email: string;
  fullName: string | null;
  isActive: boolean;
  role: string;
}

/** The stored item as the bench's own servers read it (bench-seed.ts writes these fields). */
export interface BenchItem {
  _id: number;
  name: string;
  description: string | null;
  priceCents: number;
  ownerId: number | null;
}
