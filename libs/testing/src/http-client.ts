/** A small fetch wrapper for tests: JSON or form bodies in, status, headers and parsed body out. */
export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface HttpOptions {
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: string;
  token?: string;
}

async function request<T>(method: string, url: string, options: HttpOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.body;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
    parsed = JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export const http = {
  get: <T = any>(url: string, options?: HttpOptions) => request<T>('GET', url, options),
  post: <T = any>(url: string, options?: HttpOptions) => request<T>('POST', url, options),
  put: <T = any>(url: string, options?: HttpOptions) => request<T>('PUT', url, options),
  patch: <T = any>(url: string, options?: HttpOptions) => request<T>('PATCH', url, options),
  delete: <T = any>(url: string, options?: HttpOptions) => request<T>('DELETE', url, options),
  graphql: async <T = any>(
    url: string,
    query: string,
    variables: Record<string, unknown> = {},
    options: HttpOptions = {},
  ) => request<T>('POST', url, { ...options, json: { query, variables } }),
};
