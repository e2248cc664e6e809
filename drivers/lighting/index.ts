/** The lighting driver contract, device capabilities and every level and colour conversion, in one place. */
export * from './capabilities.ts';
export * from './colour.ts';
export * from './contract.ts';
export * from './fit.ts';
export * from './levels.ts';
export * from './scales.ts';
