import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AccountsService } from '@app/domain';
import { AccountsController } from './accounts.controller';

@Module({
  controllers: [AccountsController],
  providers: [{ provide: AccountsService, useFactory: (dataSource: DataSource) => new AccountsService(dataSource), inject: [getDataSourceToken()] }],
})
export class AccountsModule {}
