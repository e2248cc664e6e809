/** The driver contract lives in drivers/lighting (shared by drivers and plugins); kept for older imports. */
export * from '../../drivers/lighting/index.ts';
