import { Injectable, UnauthorizedException } from '@nestjs/common';
import {
  DashboardUsersService,
  MAX_EMAIL_LENGTH,
  normaliseEmail,
  SignedInUser,
} from './dashboard-users.service';
import { LoginThrottleService } from './login-throttle.service';

/** Password sign-in, throttled per email and per client address. One message for every failure. */
@Injectable()
export class DashboardSignInService {
  constructor(
    private readonly users: DashboardUsersService,
    private readonly throttle: LoginThrottleService,
  ) {}

  async signIn(emailInput: string, password: string, ip: string): Promise<SignedInUser> {
    const email = normaliseEmail(emailInput).slice(0, MAX_EMAIL_LENGTH);
    await this.throttle.takeAttempt(email, ip);
    const user = await this.users.verifyPassword(email, password);
    if (!user) throw new UnauthorizedException('Wrong email or password.');
    await this.throttle.succeeded(email, ip);
    await this.users.noteSignIn(user.id);
    return user;
  }
}
