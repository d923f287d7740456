/** The test kit: the stack jest's globalSetup started, HTTP helpers, receivers and recorders. */
export { stackSubgraphSecret, testStack, type TestStack } from './test-stack';
export { startExtraApp, type ExtraApp } from './extra-apps';
export { http, type HttpOptions, type HttpResponse } from './http-client';
export { validateOpenApi31 } from './openapi-validation';
export { lintOpenApi, type SpectralFinding } from './spectral';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export { parseOpMsg, startMongoWireRecorder, type MongoWireRecorder, type RecordedCommand } from './mongo-wire-recorder';
export { isWholeCollection, serves, servingIndex, shapeKey, shapesOf, type IndexKey, type QueryShape } from './index-coverage';
export { errorCodes, stackSubgraphUrls, suiteApps, unique } from './suite-apps';
export { expectPreflightAllowed } from './cors';
export { suiteDatabases } from './suite-databases';
