/**
 * The test kit, for tests only: jest's globalSetup (src/jest) and the stack it started (testStack), extra processes
 * beside it, the HTTP test client, OpenAPI validation and Spectral, an OTLP receiver, the MongoDB wire recorder and
 * index coverage. It builds on @platform/dev-stack; neither production code nor npm start nor the bench import it.
 */
export { stackSubgraphSecret, testInfra, testStack, type TestInfra, type TestStack } from './test-stack';
export { DEVELOPMENT_MODE, startExtraApp, type ExtraApp } from './extra-apps';
export { startOwnSystem, type OwnSystem } from './own-system';
export { startSuiteFerretDb, type SuiteFerretDb } from './suite-ferretdb';
export { http, type HttpOptions, type HttpResponse } from './http-client';
export { validateOpenApi31 } from './openapi-validation';
export { lintOpenApi, type SpectralFinding } from './spectral';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export { parseOpMsg, startMongoWireRecorder, type MongoWireRecorder, type RecordedCommand } from './mongo-wire-recorder';
export { isWholeCollection, serves, servingIndex, shapeKey, shapesOf, type IndexKey, type QueryShape } from './index-coverage';
export { errorCodes, stackSubgraphUrls, suiteApps, unique } from './suite-apps';
export { expectPreflightAllowed } from './cors';
export { suiteDatabases } from './suite-databases';
export { startWebhookReceiver, type WebhookReceiver, type ReceivedDelivery } from './webhook-receiver';
export { SPECIAL_IPV4, SPECIAL_IPV6, SPECIAL_URLS, PUBLIC_ADDRESSES, PUBLIC_URLS, type SpecialRange } from './special-addresses';
export { waitFor, waitUntil } from './wait';
