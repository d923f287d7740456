/** Localized messages for the envelope format's `localizedMessage`: English and Spanish, keyed by errorCode. */
export const SUPPORTED_LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

export const localizedMessages: Record<string, Record<Language, string>> = {
  INVALID_INPUT: { en: 'The request contains invalid data.', es: 'La solicitud contiene datos no válidos.' },
  BAD_REQUEST: { en: 'The request is malformed.', es: 'La solicitud está mal formada.' },
  UNAUTHENTICATED: { en: 'Authentication is required.', es: 'Se requiere autenticación.' },
  LOGIN_FAILED: { en: 'Incorrect username or password.', es: 'Usuario o contraseña incorrectos.' },
  FORBIDDEN: { en: 'You do not have permission for this action.', es: 'No tiene permiso para esta acción.' },
  NOT_FOUND: { en: 'The resource was not found.', es: 'No se encontró el recurso.' },
  METHOD_NOT_ALLOWED: { en: 'The method is not allowed on this resource.', es: 'El método no está permitido en este recurso.' },
  CONFLICT: { en: 'The request conflicts with existing data.', es: 'La solicitud entra en conflicto con datos existentes.' },
  PAYLOAD_TOO_LARGE: { en: 'The request body is too large.', es: 'El cuerpo de la solicitud es demasiado grande.' },
  UNSUPPORTED_MEDIA_TYPE: { en: 'The content type is not supported.', es: 'El tipo de contenido no es compatible.' },
  REQUEST_TIMEOUT: { en: 'The request took too long to arrive.', es: 'La solicitud tardó demasiado en llegar.' },
  RATE_LIMITED: { en: 'Too many requests; try again later.', es: 'Demasiadas solicitudes; inténtelo más tarde.' },
  HEADERS_TOO_LARGE: {
    en: 'The request headers are too large.',
    es: 'Los encabezados de la solicitud son demasiado grandes.',
  },
  INTERNAL_ERROR: { en: 'Internal server error.', es: 'Error interno del servidor.' },
  SERVICE_UNAVAILABLE: { en: 'The service is temporarily unavailable.', es: 'El servicio no está disponible temporalmente.' },
  OUTCOME_UNKNOWN: {
    en: 'The change may or may not have been made; read the resource before trying again.',
    es: 'El cambio puede haberse realizado o no; lea el recurso antes de volver a intentarlo.',
  },
};

/** The first supported language named in an Accept-Language header, or undefined. */
export function pickLanguage(acceptLanguage: string | undefined): Language | undefined {
  if (!acceptLanguage) return undefined;
  const ranked = acceptLanguage
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { lang: tag.trim().toLowerCase().split('-')[0] ?? '', q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { lang } of ranked) {
    if ((SUPPORTED_LANGUAGES as readonly string[]).includes(lang)) return lang as Language;
  }
  return undefined;
}
