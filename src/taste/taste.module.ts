import { Module } from '@nestjs/common';
import { OpenAiTasteProvider } from './openai.provider';
import { TasteService } from './taste.service';

@Module({ providers: [OpenAiTasteProvider, TasteService], exports: [TasteService] })
export class TasteModule {}
