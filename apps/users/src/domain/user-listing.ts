/** The users listing (scope users:read): filters, sorts and pages planned by @platform/listing, run on the users collection. */
import { LISTINGS, planMongoList, toConnection, type Connection, type ConnectionArgs, type CursorSecret } from '@platform/listing';
import type { UserDocument, UserRepository } from '../data-access/user-repository';
import type { RequestCaller } from '@platform/auth';
import type { UserService } from './user-service';

export type UsersListArgs = ConnectionArgs;

export class UserListing {
  constructor(
    private readonly users: UserService,
    private readonly repository: UserRepository,
    private readonly cursorSecret: CursorSecret,
  ) {}

  async list(caller: RequestCaller, args: UsersListArgs): Promise<Connection<UserDocument>> {
    this.users.requireReader(caller);
    const plan = planMongoList(LISTINGS.users, args, this.cursorSecret, { facadeCall: caller.facadeCall });
    const docs = await this.repository.list(plan);
    return toConnection(docs, plan, LISTINGS.users, args, this.cursorSecret, (filter) => this.repository.count(filter));
  }
}
