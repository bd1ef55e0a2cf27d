import { createHash } from 'node:crypto';
import {
  BadRequestException,
  ConflictException,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  UnprocessableEntityException,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { byCodeUnits } from '../common/code-unit-order';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** How long a completed key replays its response. */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** A claim older than this whose request never finished (a crashed process) may be claimed again. */
const STALE_CLAIM_MINUTES = 10;
const SWEEP_INTERVAL_MS = 10 * 60_000;
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** The outcome of claiming a key: go ahead (and complete or release it), or replay the stored response. */
export type IdempotencyClaim =
  { kind: 'claimed'; orgId: string; key: string } | { kind: 'replay'; status: number; body: unknown };

/** JSON with object keys sorted at every level: the same JSON value gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => byCodeUnits(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** How the messages name the key and the request it fingerprints. */
export interface IdempotencyWording {
  key: string;
  request: string;
}

const HTTP_WORDING: IdempotencyWording = { key: 'Idempotency-Key', request: 'request body' };
/** MCP `create_core`: the key is its `idempotencyKey` argument, and the request is its arguments. */
export const MCP_WORDING: IdempotencyWording = { key: 'idempotencyKey', request: 'set of arguments' };

/**
 * `Idempotency-Key` storage in PostgreSQL, per organization (docs/decisions/0008). A key is claimed by
 * one INSERT ... ON CONFLICT against its primary key (org, key): of two parallel requests exactly one
 * claims it, whatever process serves them. The claimant completes it with the response to replay, or
 * releases it when the request failed (a failed first request is not stored). Completed keys replay
 * for 24 hours; expired rows are deleted by a periodic sweep.
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyService.name);
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The key as sent, or undefined when absent; 400 when empty, over-long or not printable ASCII. The
   * wording names what the caller sent: the header (REST) or the tool argument (MCP).
   */
  parseKey(raw: unknown, wording: IdempotencyWording = HTTP_WORDING): string | undefined {
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string' || !PRINTABLE_ASCII.test(raw)) {
      throw new BadRequestException(
        `${wording.key} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.`,
      );
    }
    return raw;
  }

  /**
   * Claims `key` for a request with `body` (any JSON value), or tells how to answer instead: the stored
   * response (replay), 422 when the key was used with a different body, 409 while its first request runs.
   */
  async claim(
    orgId: string,
    scope: string,
    key: string,
    body: unknown,
    wording: IdempotencyWording = HTTP_WORDING,
  ): Promise<IdempotencyClaim> {
    const hash = createHash('sha256')
      .update(`${scope}\n${canonicalJson(body ?? {})}`)
      .digest('hex');
    for (let tries = 0; tries < 3; tries++) {
      const claimed: unknown[] = await this.db.query(
        `INSERT INTO idempotency_keys (org_id, key, scope, request_hash, state, expires_at)
         VALUES ($1, $2, $3, $4, 'processing', now() + make_interval(hours => $5))
         ON CONFLICT (org_id, key) DO UPDATE
           SET scope = EXCLUDED.scope, request_hash = EXCLUDED.request_hash, state = 'processing',
               response_status = NULL, response_body = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at <= now()
              OR (idempotency_keys.state = 'processing'
                  AND idempotency_keys.created_at < now() - make_interval(mins => $6))
         RETURNING 1`,
        [orgId, key, scope, hash, IDEMPOTENCY_TTL_HOURS, STALE_CLAIM_MINUTES],
      );
      if (claimed.length > 0) return { kind: 'claimed', orgId, key };
      const [row]: {
        request_hash: string;
        state: string;
        response_status: number;
        response_body: unknown;
      }[] = await this.db.query(
        `SELECT request_hash, state, response_status, response_body FROM idempotency_keys
           WHERE org_id = $1 AND key = $2 AND expires_at > now()`,
        [orgId, key],
      );
      if (!row) continue; // released or expired in between: try to claim it again
      if (row.request_hash !== hash) {
        throw new UnprocessableEntityException(
          `This ${wording.key} was already used with a different ${wording.request}: use a new key for a new request.`,
        );
      }
      if (row.state === 'processing') {
        throw new ConflictException(
          'A request with this Idempotency-Key is still being processed; retry in a few seconds.',
        );
      }
      return { kind: 'replay', status: row.response_status, body: row.response_body };
    }
    throw new ConflictException(
      'A request with this Idempotency-Key is still being processed; retry in a few seconds.',
    );
  }

  /** Stores the response of the claimed request, to be replayed for 24 hours. */
  async complete(claim: { orgId: string; key: string }, status: number, body: unknown): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET state = 'completed', response_status = $3, response_body = $4::json
       WHERE org_id = $1 AND key = $2 AND state = 'processing'`,
      [claim.orgId, claim.key, status, JSON.stringify(body)],
    );
  }

  /** Forgets a claim whose request failed, so the key may be used again. */
  async release(claim: { orgId: string; key: string }): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys WHERE org_id = $1 AND key = $2 AND state = 'processing'`,
      [claim.orgId, claim.key],
    );
  }

  /** Deletes expired keys. */
  async sweepExpired(): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE expires_at <= now()`);
  }

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(() => {
      this.sweepExpired().catch((err: unknown) =>
        this.logger.warn(`idempotency sweep failed: ${String(err)}`),
      );
    }, SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweepTimer);
  }
}
