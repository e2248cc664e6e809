// The token bucket lives in the core so every plugin that limits a sign-in uses the same one.
export { createRateLimiter, type RateLimiter } from '../../../core/sdk.ts';
