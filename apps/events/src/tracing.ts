/** Starts tracing (when OTEL_* configure it) before anything it instruments loads: main.ts imports this first. */
import { startTracing } from '@platform/tracing';

startTracing('events');
