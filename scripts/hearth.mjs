#!/usr/bin/env node
// The `hearth` command: runs the TypeScript sources through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../core/cli/main.ts');
