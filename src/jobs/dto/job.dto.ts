import { ApiProperty } from '@nestjs/swagger';
import { GENERATION_STATUSES, GenerationStatus } from '../job.types';

export class JobResponseDto {
  @ApiProperty({ type: 'integer', example: 200 }) status!: number;
  @ApiProperty({ description: 'Job id.' }) id!: string;
  @ApiProperty({ description: 'The core this job generates.' }) coreId!: string;
  @ApiProperty({ enum: GENERATION_STATUSES, enumName: 'JobStatus' }) jobStatus!: GenerationStatus;
  @ApiProperty({ type: String, nullable: true, description: 'Failure reason when failed.' }) error!:
    string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) startedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finishedAt!: string | null;
}
