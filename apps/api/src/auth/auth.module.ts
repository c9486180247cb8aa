import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { CredentialLookupService } from './credential-lookup.service';
import { JwtStrategy } from './jwt.strategy';
import { RateLimitGuard } from './rate-limit.guard';
import { ScopesGuard } from './scopes.guard';
import { TenantGuard } from './tenant.guard';
import { TokenController } from './token.controller';
import { TokenGuard } from './token.guard';
import { TokenService } from './token.service';

/** Global guards run in this order: token → rate limit → scopes → tenant. */
@Module({
  imports: [PassportModule],
  controllers: [TokenController],
  providers: [
    CredentialLookupService,
    JwtStrategy,
    TokenService,
    { provide: APP_GUARD, useClass: TokenGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ScopesGuard },
    { provide: APP_GUARD, useClass: TenantGuard },
  ],
  exports: [CredentialLookupService],
})
export class AuthModule {}
