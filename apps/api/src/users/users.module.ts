import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { UsersService } from '@app/domain';
import { RolesController } from './roles.controller';
import { UsersController } from './users.controller';

@Module({
  controllers: [UsersController, RolesController],
  providers: [{ provide: UsersService, useFactory: (dataSource: DataSource) => new UsersService(dataSource), inject: [getDataSourceToken()] }],
})
export class UsersModule {}
