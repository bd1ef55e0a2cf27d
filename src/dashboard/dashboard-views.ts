import { Injectable } from '@nestjs/common';
import { Eta } from 'eta';
import { join } from 'node:path';
import { DashboardViewer } from './dashboard-session';
import { QueueBoardAccess } from './queue-board';

/** Next to the compiled file in both ts-node (src/dashboard) and dist (dist/src/dashboard). */
const VIEWS_DIR = join(__dirname, 'views');
export const PUBLIC_DIR = join(__dirname, 'public');

export type NavSection = 'overview' | 'keys' | 'audit' | 'cores' | 'webhooks' | 'none';

/** What every page's layout needs; page templates receive this plus their own fields. */
export interface PageBase {
  title: string;
  active: NavSection;
  viewer: DashboardViewer | null;
  csrfToken: string;
  flash?: { kind: 'success' | 'error'; text: string } | null;
  /** Whether the viewer may use owner-only controls (they are hidden from members and refused on the server). */
  isOwner?: boolean;
}

const formatDate = (value: Date | string | null | undefined): string => {
  if (!value) return '—';
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? '—' : d.toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
};

/** Only http(s) and image data URLs may become a link or image source. */
const safeUrl = (value: string | null | undefined): string =>
  value && /^(https?:\/\/|data:image\/)/i.test(value) ? value : '#';

/** Server-side rendering with eta; every `<%= %>` output is HTML-escaped. */
@Injectable()
export class DashboardViews {
  private readonly eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, useWith: false });

  constructor(private readonly queueBoard: QueueBoardAccess) {}

  render<T extends PageBase>(template: string, page: T): string {
    const isOwner = page.viewer?.user.role === 'owner';
    // The nav links the queue board only for those it lets in.
    const queueBoard = this.queueBoard.allows(page.viewer);
    return this.eta.render(template, { ...page, isOwner, queueBoard, helpers: { formatDate, safeUrl } });
  }
}
