// API errors as the server sends them: a metav1.Status body with code, reason and message.

/** An API failure the HTTP layer turns into a Status response. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The metav1.Status object for an error. */
export function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
  if (details) body.details = details;
  return body;
}

/** 404 for a named object, worded like the API server. */
export function notFound(resource: string, group: string, name: string): ApiError {
  const gr = group ? `${resource}.${group}` : resource;
  return new ApiError(404, 'NotFound', `${gr} "${name}" not found`, { name, group, kind: resource });
}

/** 410 for a watch or continue token older than the retained history. */
export function expired(rv: number | string, oldest: number): ApiError {
  return new ApiError(410, 'Expired', `too old resource version: ${rv} (${oldest})`);
}

const REASONS: Record<number, [string, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'Unauthorized'],
  403: ['Forbidden', 'forbidden'],
  404: ['NotFound', 'the server could not find the requested resource'],
  409: ['Conflict', 'the object has been modified'],
  410: ['Expired', 'too old resource version'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  500: ['InternalError', 'Internal error occurred: simulated failure'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted'],
};

/** The Status reason and message the API server uses for an HTTP status. */
export function reasonOf(status: number): [reason: string, message: string] {
  return REASONS[status] ?? ['InternalError', `simulated HTTP ${status}`];
}
