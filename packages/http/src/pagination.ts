/** CometChat's `meta.pagination` for a page-numbered list. */
export interface Pagination {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  total_pages: number;
}

/**
 * The one pagination rule of every list: an empty list is one empty page (`total_pages: 1`), so a
 * client looping `while (page < total_pages)` stops the same way on every endpoint.
 */
export function pagination(total: number, count: number, perPage: number, page: number): Pagination {
  return { total, count, per_page: perPage, current_page: page, total_pages: Math.max(1, Math.ceil(total / perPage)) };
}
