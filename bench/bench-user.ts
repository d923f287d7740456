/** The stored user as the bench's own servers (the floor, the docs-default baseline) read it: the fields a read returns. */
export interface BenchUser {
  _id: number;
  username: string;
  email: string;
  fullName: string | null;
  isActive: boolean;
  role: string;
}
