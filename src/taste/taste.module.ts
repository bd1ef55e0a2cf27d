import { Module } from '@nestjs/common';
import { TasteService } from './taste.service';

@Module({ providers: [TasteService], exports: [TasteService] })
export class TasteModule {}
